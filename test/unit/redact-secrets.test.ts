import fc from 'fast-check';
import { credentialPatterns } from '../../functions/shared/security/credential-patterns.js';
import { MIN_SECRET_FRAGMENT, REDACTED, SecretRedactor } from '../../functions/shared/security/redact-secrets.js';

/**
 * The scrubber as a class of inputs: random secrets in random text, in the spellings text quotes them
 * with (raw, URL-encoded, JSON-escaped, cut in pieces), checked by what must never be left.
 */

const RUNS = { numRuns: 300 };

const chars = (alphabet: string) => fc.constantFrom(...alphabet.split(''));
const stringOf = (alphabet: string, minLength: number, maxLength: number) =>
  fc.array(chars(alphabet), { minLength, maxLength }).map((list) => list.join(''));

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** What upstream keys are made of, with the characters that JSON and URLs escape. */
const SECRET_ALPHABET = `${BASE62}-_./+=~!*'()@:"\\ `;
/** Text around a secret, sharing no character with it: whatever is left of the secret is then visible. */
const FILLER_ALPHABET = '#|<>{}^`$ ,;\n\t';

/**
 * A random key, with a digit at least every fourth character as random keys have: no piece of it is
 * a run of plain words, which the redactor leaves unless it is a whole key (tested on its own below).
 */
const keyLike = (alphabet: string, minLength: number, maxLength: number) =>
  stringOf(alphabet, minLength, maxLength).map((text) => text.replace(/(.{3})/g, '$17'));
const secretArbitrary = keyLike(SECRET_ALPHABET, MIN_SECRET_FRAGMENT, 60);
const filler = stringOf(FILLER_ALPHABET, 0, 40);

type Spelling = (secret: string) => string;
const spellings: Record<string, Spelling> = {
  raw: (secret) => secret,
  'URL-encoded': (secret) => encodeURIComponent(secret),
  'JSON-escaped': (secret) => JSON.stringify(secret).slice(1, -1),
  'JSON-escaped with \\/': (secret) => JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/'),
};

/** Every piece of `text` at least MIN_SECRET_FRAGMENT long. */
const windows = (text: string): string[] => {
  const all: string[] = [];
  for (let start = 0; start + MIN_SECRET_FRAGMENT <= text.length; start++)
    all.push(text.slice(start, start + MIN_SECRET_FRAGMENT));
  return all;
};

const expectNoPieceOf = (output: string, secret: string) => {
  for (const piece of windows(secret)) expect(output).not.toContain(piece);
};

describe('known secrets (upstream keys, the function’s AWS credentials)', () => {
  test.each(Object.entries(spellings))('a secret written %s in any text leaves no piece of itself', (_name, spell) => {
    fc.assert(
      fc.property(secretArbitrary, filler, filler, (secret, before, after) => {
        const redactor = new SecretRedactor();
        redactor.remember(secret);

        const output = redactor.redact(`${before}${spell(secret)}${after}`);

        expectNoPieceOf(output, spell(secret));
        expect(output).toContain(REDACTED);
      }),
      RUNS,
    );
  });

  /** The part of a base64 text that depends on `secret` alone, when it starts `offset` bytes into the encoded bytes. */
  const encodedCore = (encoded: string, before: number, secret: string): string => {
    const length = Buffer.byteLength(secret);
    return encoded.slice(Math.ceil((8 * before) / 6), Math.floor((8 * (before + length)) / 6));
  };

  test.each([
    ['base64', 'base64'],
    ['URL-safe base64', 'base64url'],
  ] as const)(
    'a secret inside a %s text, at any offset, leaves no piece of 16 characters of its encoding',
    (_name, encoding) => {
      fc.assert(
        fc.property(
          secretArbitrary,
          fc.uint8Array({ maxLength: 20 }),
          fc.uint8Array({ maxLength: 20 }),
          (secret, before, after) => {
            const redactor = new SecretRedactor();
            redactor.remember(secret);
            const encoded = Buffer.concat([before, Buffer.from(secret), after]).toString(encoding);

            const output = redactor.redact(`data: ${encoded} #`);

            const core = encodedCore(encoded, before.length, secret);
            for (let start = 0; start + 16 <= core.length; start++)
              expect(output).not.toContain(core.slice(start, start + 16));
            if (core.length >= 16) expect(output).toContain(REDACTED);
          },
        ),
        RUNS,
      );
    },
  );

  test.each([
    ['in hex', 16, (secret: string) => Buffer.from(secret).toString('hex')],
    ['in upper-case hex', 16, (secret: string) => Buffer.from(secret).toString('hex').toUpperCase()],
    ['upper-cased', MIN_SECRET_FRAGMENT, (secret: string) => secret.toUpperCase()],
    ['lower-cased', MIN_SECRET_FRAGMENT, (secret: string) => secret.toLowerCase()],
  ])('a secret written %s leaves no piece of %i characters of itself', (_name, piece, spell) => {
    fc.assert(
      fc.property(secretArbitrary, filler, filler, (secret, before, after) => {
        const redactor = new SecretRedactor();
        redactor.remember(secret);
        const written = spell(secret).toLowerCase();

        const output = redactor.redact(`${before}${spell(secret)}${after}`).toLowerCase();

        for (let start = 0; start + piece <= written.length; start++)
          expect(output).not.toContain(written.slice(start, start + piece));
        expect(output).toContain(REDACTED.toLowerCase());
      }),
      RUNS,
    );
  });

  test('hex and base64 that merely share a few bytes with a secret are left as they are', () => {
    const redactor = new SecretRedactor();
    const secret = 'sk-live-0123456789abcdefXYZ';
    redactor.remember(secret);
    // Eight hex digits (four bytes) of the secret's hex inside an unrelated digest.
    const hex = Buffer.from(secret).toString('hex');
    const digest = `f00dfeed${hex.slice(0, 8)}0badcafe`;

    expect(redactor.redact(`sha: ${digest}`)).toBe(`sha: ${digest}`);
  });

  test('a secret cut in pieces of at least the minimum length, with text between, leaves none of them', () => {
    fc.assert(
      fc.property(
        keyLike(SECRET_ALPHABET, 3 * MIN_SECRET_FRAGMENT, 90),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        filler,
        (secret, cutSeeds, between) => {
          const redactor = new SecretRedactor();
          redactor.remember(secret);
          // Cut points that leave every piece at least MIN_SECRET_FRAGMENT long.
          const cuts = [
            ...new Set(
              cutSeeds.map((seed) => MIN_SECRET_FRAGMENT + (seed % (secret.length - 2 * MIN_SECRET_FRAGMENT + 1))),
            ),
          ]
            .sort((a, b) => a - b)
            .filter((cut, index, all) => index === 0 || cut - all[index - 1]! >= MIN_SECRET_FRAGMENT);
          const pieces = [0, ...cuts].map((start, index) => secret.slice(start, [...cuts, secret.length][index]));

          const output = redactor.redact(`start ${pieces.join(` ${between}|`)} end`);

          expectNoPieceOf(output, secret);
        },
      ),
      RUNS,
    );
  });

  test(`a piece shorter than ${MIN_SECRET_FRAGMENT} characters is left, one of ${MIN_SECRET_FRAGMENT} is removed`, () => {
    fc.assert(
      fc.property(keyLike(BASE62, 20, 45), fc.nat(), (secret, seed) => {
        const redactor = new SecretRedactor();
        redactor.remember(secret);
        const start = seed % (secret.length - MIN_SECRET_FRAGMENT);
        const short = secret.slice(start, start + MIN_SECRET_FRAGMENT - 1);
        const long = secret.slice(start, start + MIN_SECRET_FRAGMENT);

        expect(redactor.redact(`# ${short} #`)).toBe(`# ${short} #`);
        expect(redactor.redact(`# ${long} #`)).toBe(`# ${REDACTED} #`);
      }),
      RUNS,
    );
  });

  test('a key made of words gives up none of its words alone, but the whole key and any piece with more in it', () => {
    const redactor = new SecretRedactor();
    redactor.remember('upstream-key-of-first');
    redactor.remember('sk-upstream-secret-value-0123456789');

    expect(redactor.redact('{"code":"upstream_error","message":"The upstream provider failed"}')).toBe(
      '{"code":"upstream_error","message":"The upstream provider failed"}',
    );
    expect(redactor.redact('key upstream-key-of-first, then sk-upstream-secret-value-0123456789.')).toBe(
      `key ${REDACTED}, then ${REDACTED}.`,
    );
    expect(redactor.redact('pieces: secret-value-01 and upstream-secret-value')).toBe(
      `pieces: ${REDACTED} and ${REDACTED}`,
    );
  });

  test('a short secret is removed where it stands as a word, not inside other words', () => {
    const redactor = new SecretRedactor();
    redactor.remember('s3cr3t');

    expect(redactor.redact('key s3cr3t, and xs3cr3ty')).toBe(`key ${REDACTED}, and xs3cr3ty`);
  });

  test('a JSON document stays JSON, without the secret in any of its strings', () => {
    fc.assert(
      fc.property(
        secretArbitrary,
        fc.array(fc.tuple(stringOf(BASE62, 1, 8), filler, filler), { minLength: 1, maxLength: 4 }),
        (secret, fields) => {
          const redactor = new SecretRedactor();
          redactor.remember(secret);
          const document = Object.fromEntries(
            fields.map(([name, before, after]) => [name, `${before}${secret}${after}`]),
          );
          const nested = { message: JSON.stringify(document), document };

          const output = redactor.redact(JSON.stringify(nested));

          const parsed = JSON.parse(output) as { message: string; document: Record<string, string> };
          for (const value of [parsed.message, ...Object.values(parsed.document)]) expectNoPieceOf(value, secret);
        },
      ),
      RUNS,
    );
  });

  test('the function’s own AWS credentials are removed without anyone naming them', () => {
    fc.assert(
      fc.property(
        stringOf('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16, 16),
        stringOf(`${BASE62}/+`, 40, 40),
        stringOf(`${BASE62}/+=`, 100, 400),
        filler,
        (keyIdTail, secretKey, sessionToken, around) => {
          const environment = {
            AWS_ACCESS_KEY_ID: `ASIA${keyIdTail}`,
            AWS_SECRET_ACCESS_KEY: secretKey,
            AWS_SESSION_TOKEN: sessionToken,
          };
          const redactor = new SecretRedactor({ environment: () => environment });

          const output = redactor.redact(
            `${around}${secretKey}${around}${encodeURIComponent(sessionToken)}${around}${environment.AWS_ACCESS_KEY_ID}`,
          );

          for (const value of Object.values(environment)) expectNoPieceOf(output, value);
          expectNoPieceOf(output, encodeURIComponent(sessionToken));
        },
      ),
      { numRuns: 100 },
    );
  });

  test('the same text comes back, the very same string, when there is nothing to remove', () => {
    const redactor = new SecretRedactor();
    redactor.remember('upstream-key-0123456789abcdef');
    fc.assert(
      fc.property(stringOf('abcdefghijklmnopqrstuvwxyz0123456789 .,!?"{}[]', 0, 300), (text) => {
        expect(redactor.redact(text)).toBe(text);
      }),
      RUNS,
    );
  });
});

describe('credentials recognised by their name or shape', () => {
  const tokenValue = stringOf(`${BASE62}-_.~+/`, 12, 60);

  test.each(['authorization', 'Authorization', 'proxy-authorization', 'x-api-key', 'X-Api-Key', 'x-goog-api-key'])(
    'the value of the %s header is removed, however the header is written',
    (header) => {
      const forms: Array<(value: string) => string> = [
        (value) => `${header}: Bearer ${value}\r\nhost: example.com`,
        (value) => `${header}: ${value}`,
        (value) => JSON.stringify({ [header]: value, other: 1 }),
        (value) => JSON.stringify({ message: JSON.stringify({ headers: { [header]: `Bearer ${value}` } }) }),
        (value) => `{'${header}': '${value}', 'accept': '*/*'}`,
      ];
      fc.assert(
        fc.property(tokenValue, fc.constantFrom(...forms), (value, form) => {
          const output = new SecretRedactor().redact(form(value));

          expect(output).not.toContain(value);
          expect(output.toLowerCase()).toContain(header.toLowerCase());
        }),
        RUNS,
      );
    },
  );

  test.each([
    'key',
    'api_key',
    'apikey',
    'access_token',
    'token',
    'sig',
    'signature',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'X-Amz-Security-Token',
  ])('a %s= query value is removed, raw or URL-encoded within another URL', (name) => {
    fc.assert(
      fc.property(tokenValue, (value) => {
        const url = `https://upstream.example/v1beta/models/m:generateContent?alt=sse&${name}=${encodeURIComponent(value)}&x=1`;
        const redactor = new SecretRedactor();

        for (const text of [url, `redirect=${encodeURIComponent(url)}`, `GET ${url} HTTP/1.1`]) {
          const output = redactor.redact(text);
          expect(output).not.toContain(encodeURIComponent(value));
          expect(output).not.toContain(encodeURIComponent(encodeURIComponent(value)));
        }
      }),
      RUNS,
    );
  });

  test('a name that ends the value of the one before still has its own value removed', () => {
    const redactor = new SecretRedactor();

    for (const text of [
      'password=secret\\:hunter2-value',
      'api_key%3Dtoken\\:hunter2-value',
      '"key":"token\\"=hunter2-value',
    ]) {
      expect(redactor.redact(text)).not.toContain('hunter2');
    }
  });

  test("a pattern's cheap pre-test passes on every text the pattern itself would change", () => {
    const piece = fc.oneof(
      fc.constantFrom('authorization', 'X-Api-Key', 'api_key', 'token', 'Secret', 'sig', 'key', 'Bearer ', 'keyId'),
      fc.constantFrom(':', '=', '%3D', '%3d', '%26', '"', "'", '\\', ' ', '\\"', '-', '_', '&', ',', '\\/', REDACTED),
      stringOf(`${BASE62}-_`, 0, 12),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        for (const { find, replace, present } of credentialPatterns) {
          if (!present || present.test(text)) continue;
          const changed = typeof replace === 'string' ? text.replace(find, replace) : text.replace(find, replace);
          expect(changed).toBe(text);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test('a word merely ending like a name is no credential name', () => {
    const redactor = new SecretRedactor();

    expect(redactor.redact('monkey=banana&tokens=12&keyId=key_abc')).toBe('monkey=banana&tokens=12&keyId=key_abc');
  });

  test('AWS access key ids, secret keys under their names, and SigV4 signatures are removed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('AKIA', 'ASIA'),
        stringOf('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16, 16),
        stringOf(`${BASE62}/+`, 40, 40),
        stringOf('0123456789abcdef', 64, 64),
        (kind, tail, secretKey, signature) => {
          const keyId = `${kind}${tail}`;
          const texts = [
            `Authorization: AWS4-HMAC-SHA256 Credential=${keyId}/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`,
            `https://bucket.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${keyId}%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=${signature}`,
            `aws_secret_access_key = ${secretKey}\naws_access_key_id=${keyId}`,
            JSON.stringify({ credentials: { AccessKeyId: keyId, SecretAccessKey: secretKey } }),
          ];
          for (const text of texts) {
            const output = new SecretRedactor().redact(text);
            for (const value of [keyId, secretKey, signature]) expect(output).not.toContain(value);
          }
        },
      ),
      RUNS,
    );
  });

  test('a gateway key keeps its 10-character prefix and nothing more', () => {
    fc.assert(
      fc.property(stringOf(BASE62, 40, 60), filler, filler, (body, before, after) => {
        const key = `sk-${body}`;

        const output = new SecretRedactor().redact(`${before}${key}${after}`);

        expect(output).toContain(key.slice(0, 10));
        for (let start = 0; start + MIN_SECRET_FRAGMENT <= key.length; start++) {
          if (start + MIN_SECRET_FRAGMENT > 10)
            expect(output).not.toContain(key.slice(start, start + MIN_SECRET_FRAGMENT));
        }
      }),
      RUNS,
    );
  });

  test('removing twice changes nothing more', () => {
    const anything = fc.oneof(
      stringOf(`${SECRET_ALPHABET}${FILLER_ALPHABET}`, 0, 100),
      stringOf(BASE62, 40, 50).map((body) => `key=sk-${body}`),
      tokenValue.map((value) => `{"authorization":"Bearer ${value}"}`),
    );
    fc.assert(
      fc.property(fc.array(anything, { maxLength: 4 }), secretArbitrary, (parts, secret) => {
        const redactor = new SecretRedactor();
        redactor.remember(secret);
        const once = redactor.redact(parts.join(secret.slice(0, 12)));

        expect(redactor.redact(once)).toBe(once);
      }),
      RUNS,
    );
  });
});
