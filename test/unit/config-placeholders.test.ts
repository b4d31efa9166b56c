import fc from 'fast-check';
import {
  findPlaceholder,
  resolvePlaceholders,
  UnsetPlaceholderError,
} from '../../functions/shared/config/config-placeholders.js';
import { GatewayConfigError } from '../../functions/shared/config/gateway-config-schema.js';
import { parseGatewayConfig } from '../../functions/shared/config/gateway-config.js';
import { formatParamPath } from '../../functions/shared/middleware/validate-body.js';

type Path = Array<string | number>;

/** A JSON document and the path of one of its string leaves (or none when it has no string). */
const documentWithLeaf: fc.Arbitrary<{ document: unknown; leaf: Path | undefined }> = fc
  .jsonValue({ maxDepth: 5 })
  .chain((document): fc.Arbitrary<{ document: unknown; leaf: Path | undefined }> => {
    const leaves: Array<Array<string | number>> = [];
    const walk = (value: unknown, path: Array<string | number>) => {
      if (typeof value === 'string') leaves.push(path);
      else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index]));
      else if (value !== null && typeof value === 'object')
        for (const [field, item] of Object.entries(value)) walk(item, [...path, field]);
    };
    walk(document, []);
    return leaves.length
      ? fc.constantFrom(...leaves).map((leaf) => ({ document: document as unknown, leaf: leaf as Path | undefined }))
      : fc.constant({ document, leaf: undefined });
  })
  .filter(({ document }) => !JSON.stringify(document).includes('${'));

const setAt = (document: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown => {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(document) ? [...document] : { ...(document as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head!] = setAt(copy[head!], rest, value);
  return copy;
};

describe('findPlaceholder (what the admin API refuses)', () => {
  test('finds a placeholder written into any string of any document, at its path', () => {
    fc.assert(
      fc.property(
        documentWithLeaf,
        fc.constantFrom('AWS_SECRET_ACCESS_KEY', 'HOME', '_x1'),
        fc.string(),
        (sample, name, around) => {
          fc.pre(sample.leaf !== undefined && !around.includes('${'));
          const document = setAt(sample.document, sample.leaf!, `${around}\${${name}}${around}`);

          const found = findPlaceholder(document);

          expect(found).toEqual({ param: formatParamPath(sample.leaf!), name });
        },
      ),
      { numRuns: 300 },
    );
  });

  test('finds nothing in a document without one', () => {
    fc.assert(
      fc.property(documentWithLeaf, ({ document }) => {
        expect(findPlaceholder(document)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  test('finds one in a field name too, and in a document nested far deeper than any call stack', () => {
    let deep: unknown = { channels: [{ modelMap: { '${SECRET}': 'x' } }] };
    for (let level = 0; level < 100_000; level++) deep = [deep];

    expect(findPlaceholder({ channels: [{ id: 'a', modelMap: { '${SECRET}': 'x' } }] })).toEqual({
      param: 'channels[0].modelMap.${SECRET}',
      name: 'SECRET',
    });
    expect(findPlaceholder(deep)?.name).toBe('SECRET');
  });
});

describe('resolvePlaceholders (the operator’s side)', () => {
  test('replaces whole values and parts of values from the given environment only', () => {
    const document = { channels: [{ apiKey: '${KEY}', baseUrl: 'https://${HOST}/v1', models: ['m'] }] };

    expect(resolvePlaceholders(document, { KEY: 'k-123', HOST: 'api.example' })).toEqual({
      channels: [{ apiKey: 'k-123', baseUrl: 'https://api.example/v1', models: ['m'] }],
    });
  });

  test('leaves a document without placeholders equal to itself', () => {
    fc.assert(
      fc.property(documentWithLeaf, ({ document }) => {
        expect(resolvePlaceholders(document, {})).toEqual(document);
      }),
      { numRuns: 200 },
    );
  });

  test('refuses a variable that is not set, naming the field', () => {
    expect(() => resolvePlaceholders({ accounts: [{ keys: [{ key: '${TEAM_KEY}' }] }] }, {})).toThrow(
      new UnsetPlaceholderError('accounts[0].keys[0].key', 'TEAM_KEY'),
    );
  });

  test('a config file reads the environment it is given, not the process’s', () => {
    process.env.PLACEHOLDER_TEST_KEY = 'from-the-process';
    try {
      const text =
        'channels:\n  - id: a\n    type: openai\n    baseUrl: http://127.0.0.1:9/v1\n    apiKey: ${PLACEHOLDER_TEST_KEY}\n    models: [m]\n';

      expect(
        parseGatewayConfig(text, 'gateway.yaml', { PLACEHOLDER_TEST_KEY: 'from-the-operator' }).channels[0]!.apiKey,
      ).toBe('from-the-operator');
      expect(() => parseGatewayConfig(text, 'gateway.yaml', {})).toThrow(
        new GatewayConfigError(
          'gateway.yaml: channels[0].apiKey: the environment variable PLACEHOLDER_TEST_KEY is not set',
        ),
      );
    } finally {
      delete process.env.PLACEHOLDER_TEST_KEY;
    }
  });
});
