import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';
import fc from 'fast-check';
import { SigningSha256 } from '../../functions/shared/aws/signing-sha256.js';

/**
 * The store client signs with `SigningSha256` instead of the SDK's own SHA-256. The embedded store
 * does not check signatures, so only this suite stands between a wrong digest and every call failing
 * on AWS: each digest, and each whole signature, must be the SDK's to the byte.
 */

const bytes = fc.uint8Array({ maxLength: 200 });
const source = fc.oneof(fc.string(), bytes);

const digestOf = async (hash: { update(data: Uint8Array): void; digest(): Promise<Uint8Array> }, parts: unknown[]) => {
  for (const part of parts) hash.update(part as Uint8Array);
  return Buffer.from(await hash.digest()).toString('hex');
};

describe('the signing SHA-256', () => {
  it("gives the SDK's digest for any data, plain and keyed by any secret", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(source, { nil: undefined }),
        fc.array(source, { maxLength: 4 }),
        async (secret, parts) => {
          expect(await digestOf(new SigningSha256(secret), parts)).toBe(await digestOf(new Sha256(secret), parts));
        },
      ),
    );
  });

  it('gives the same digest for a key it has already seen, and a new one after reset', async () => {
    const first = await digestOf(new SigningSha256('key'), ['data']);
    const again = new SigningSha256('key');
    expect(await digestOf(again, ['data'])).toBe(first);
    again.reset();
    expect(await digestOf(again, ['other'])).toBe(await digestOf(new Sha256('key'), ['other']));
  });

  it("signs any DynamoDB request exactly as the SDK's own hash does", async () => {
    const signer = (sha256: typeof Sha256 | typeof SigningSha256, secretAccessKey: string, sessionToken?: string) =>
      new SignatureV4({
        service: 'dynamodb',
        region: 'eu-west-1',
        sha256,
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
      });
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        fc.string(),
        fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }),
        async (secretAccessKey, sessionToken, body, signingDate) => {
          const request = () =>
            new HttpRequest({
              method: 'POST',
              protocol: 'https:',
              hostname: 'dynamodb.eu-west-1.amazonaws.com',
              path: '/',
              headers: {
                host: 'dynamodb.eu-west-1.amazonaws.com',
                'content-type': 'application/x-amz-json-1.0',
                'x-amz-target': 'DynamoDB_20120810.PutItem',
              },
              body,
            });
          const ours = await signer(SigningSha256, secretAccessKey, sessionToken).sign(request(), { signingDate });
          const theirs = await signer(Sha256, secretAccessKey, sessionToken).sign(request(), { signingDate });
          expect(ours.headers).toEqual(theirs.headers);
        },
      ),
      { numRuns: 50 },
    );
  });
});
