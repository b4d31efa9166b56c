import { SignatureV4 } from '@smithy/signature-v4';
import fc from 'fast-check';
import { Sha256 } from '@smithy/core/checksum';
import { signRequest } from '../../functions/shared/store/store-signing.js';

/**
 * The store's own Signature V4, held to the SDK's signer (`@smithy/signature-v4`) over requests of
 * every shape a store call can take: paths with dot segments and characters to escape, header values
 * with runs of spaces and tabs, session tokens or none, any date and region.
 */

const headerValue = fc
  .array(fc.constantFrom('a', 'Z', '0', ' ', '\t', '-', '/', ':', '=', ',', '.', '"', 'é'), {
    minLength: 1,
    maxLength: 24,
  })
  .map((characters) => characters.join(''));
const headerName = fc.stringMatching(/^x-[a-z][a-z0-9-]{0,12}$/);
const pathSegment = fc.oneof(
  fc.constantFrom('.', '..', '', 'tables', 'a b', 'x%20y', "it's", '(1)', 'ü', '*'),
  fc.stringMatching(/^[A-Za-z0-9_~.-]{1,8}$/),
);
const path = fc
  .tuple(fc.array(pathSegment, { maxLength: 4 }), fc.boolean())
  .map(
    ([segments, trailing]) =>
      `/${segments.map((segment) => encodeURIComponent(segment)).join('/')}${trailing ? '/' : ''}`,
  )
  .map((text) => text.replace(/\/\/+/g, '/'));

const credentials = fc.record(
  {
    accessKeyId: fc.stringMatching(/^AKID[A-Z0-9]{4,16}$/),
    secretAccessKey: fc.stringMatching(/^[A-Za-z0-9/+]{8,40}$/),
    sessionToken: fc.stringMatching(/^[A-Za-z0-9/+=]{8,60}$/),
  },
  { requiredKeys: ['accessKeyId', 'secretAccessKey'] },
);

test('every signature is the one the SDK’s signer makes of the same request', async () => {
  await fc.assert(
    fc.asyncProperty(
      path,
      fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
      fc.string({ maxLength: 200 }),
      credentials,
      fc.constantFrom('us-east-1', 'eu-west-1', 'ap-southeast-2'),
      fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true }),
      async (requestPath, extraHeaders, body, keys, region, date) => {
        const headers: Record<string, string> = {
          ...extraHeaders,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.GetItem',
          'content-length': String(Buffer.byteLength(body)),
          host: 'dynamodb.example.test',
        };
        const ours = { method: 'POST', path: requestPath, headers: { ...headers }, body };
        signRequest(ours, keys, region, 'dynamodb', date);

        const reference = new SignatureV4({ credentials: keys, region, service: 'dynamodb', sha256: Sha256 });
        const theirs = await reference.sign(
          {
            method: 'POST',
            protocol: 'https:',
            hostname: 'dynamodb.example.test',
            path: requestPath,
            query: {},
            headers,
            body,
          },
          { signingDate: date },
        );
        expect(ours.headers).toEqual(theirs.headers);
      },
    ),
    { numRuns: 300 },
  );
});

test('a signature changes with what it covers', () => {
  const keys = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
  const date = new Date('2026-11-26T05:00:00Z');
  const signed = (body: string, target = 'DynamoDB_20120810.PutItem') => {
    const request = { method: 'POST', path: '/', headers: { host: 'h', 'x-amz-target': target }, body };
    signRequest(request, keys, 'us-east-1', 'dynamodb', date);
    return (request.headers as Record<string, string>).authorization!;
  };
  expect(signed('{}')).not.toBe(signed('{ }'));
  expect(signed('{}')).not.toBe(signed('{}', 'DynamoDB_20120810.DeleteItem'));
  expect(signed('{}')).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261126\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/,
  );
});
