import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deriveAccountId,
  GatewayConfigError,
  loadGatewayConfigFile,
  parseGatewayConfig,
} from '../../functions/shared/config/gateway-config.js';

const declaredKey = 'sk-configKey0123456789abcdefghijklmnop';

const yamlConfig = `
channels:
  - id: openai-main
    type: openai
    baseUrl: https://api.openai.com/v1
    apiKey: \${TEST_UPSTREAM_KEY}
    models: [gpt-4o, gpt-4o-mini]
    modelMap: { gpt-4o: gpt-4o-2024-08-06 }
    priority: 10
models:
  - id: gpt-4o
    pricing: { inputPerMTok: 2.5, outputPerMTok: 10 }
    aliases: [gpt-4o-latest]
accounts:
  - name: Team A
    models: [gpt-4o]
    quota: { limit: 50 }
    rateLimit: { rpm: 60 }
    keys:
      - key: ${declaredKey}
        name: ci
`;

/** The message of the error parsing this text gives. */
const parseError = (text: string, fileName: string): string => {
  try {
    parseGatewayConfig(text, fileName);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
};

beforeEach(() => {
  process.env.TEST_UPSTREAM_KEY = 'upstream-secret-value';
});

afterEach(() => {
  delete process.env.TEST_UPSTREAM_KEY;
});

describe('parseGatewayConfig', () => {
  test('reads YAML with defaults filled in', () => {
    const config = parseGatewayConfig(yamlConfig, 'gateway.yaml');

    expect(config.channels).toEqual([
      {
        id: 'openai-main',
        type: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        apiKey: 'upstream-secret-value',
        models: ['gpt-4o', 'gpt-4o-mini'],
        modelMap: { 'gpt-4o': 'gpt-4o-2024-08-06' },
        priority: 10,
        weight: 1,
        enabled: true,
      },
    ]);
    expect(config.models[0]).toEqual({
      id: 'gpt-4o',
      pricing: { inputPerMTok: 2.5, outputPerMTok: 10 },
      aliases: ['gpt-4o-latest'],
    });
    expect(config.accounts[0]).toMatchObject({
      id: deriveAccountId('Team A'),
      name: 'Team A',
      quota: { limit: 50 },
      keys: [{ key: declaredKey, name: 'ci' }],
    });
  });

  test('reads JSON with the same meaning', () => {
    const json = JSON.stringify({
      channels: [{ id: 'local', type: 'openai', baseUrl: 'http://localhost:11434/v1', models: ['llama3'] }],
      accounts: [{ id: 'acct_team', name: 'Team', keys: [{ key: declaredKey }] }],
    });

    const config = parseGatewayConfig(json, 'gateway.json');

    expect(config.channels[0]).toMatchObject({ id: 'local', baseUrl: 'http://localhost:11434/v1', priority: 0 });
    expect(config.accounts[0]).toMatchObject({ id: 'acct_team', keys: [{ key: declaredKey }] });
    expect(config.models).toEqual([]);
  });

  test('detects JSON by content when the file name says nothing', () => {
    expect(parseGatewayConfig('{"models": [{"id": "m1"}]}', 'config').models).toEqual([{ id: 'm1' }]);
  });

  test('an empty file declares nothing', () => {
    expect(parseGatewayConfig('', 'gateway.yaml')).toEqual({ channels: [], models: [], accounts: [], members: [] });
  });

  test('an apiKey of the form ${NAME} is read from the environment', () => {
    process.env.TEST_UPSTREAM_KEY = 'another-value';
    expect(parseGatewayConfig(yamlConfig, 'gateway.yaml').channels[0]!.apiKey).toBe('another-value');
  });

  test('an upstream key from the environment with a trailing newline is refused, naming the field and not the key', () => {
    process.env.TEST_UPSTREAM_KEY = 'sk-from-a-file-with-its-newline\n';
    const message = parseError(yamlConfig, 'gateway.yaml');
    expect(message).toMatch(/^gateway\.yaml: channels\[0\]\.apiKey: an upstream key goes in a header/);
    expect(message).not.toContain('sk-from');
  });

  test('an unset environment variable is an error naming the field and the variable', () => {
    delete process.env.TEST_UPSTREAM_KEY;
    expect(parseError(yamlConfig, 'gateway.yaml')).toBe(
      'gateway.yaml: channels[0].apiKey: the environment variable TEST_UPSTREAM_KEY is not set',
    );
  });

  test('a bad field is reported with the file name and its path', () => {
    const text = yamlConfig.replace('rateLimit: { rpm: 60 }', 'rateLimit: { rpm: -5 }');
    expect(parseError(text, 'gateway.yaml')).toMatch(/^gateway\.yaml: accounts\[0\]\.rateLimit\.rpm: /);
  });

  test('an unknown field is reported by its path', () => {
    const text = yamlConfig.replace('priority: 10', 'priority: 10\n    colour: red');
    expect(parseError(text, 'gateway.yaml')).toBe('gateway.yaml: channels[0].colour: unknown field');
  });

  test('a declared key that does not look like a gateway key is refused', () => {
    const text = yamlConfig.replace(declaredKey, 'not-a-key');
    expect(parseError(text, 'gateway.yaml')).toMatch(/accounts\[0\]\.keys\[0\]\.key: expected sk-/);
  });

  test('two channels with one id are refused at the second', () => {
    const channel = { id: 'same', type: 'demo', models: ['demo-1'] };
    expect(parseError(JSON.stringify({ channels: [channel, channel] }), 'gateway.json')).toBe(
      'gateway.json: channels[1].id: duplicate channel id',
    );
  });

  test('two accounts without id and with one name are refused', () => {
    const text = JSON.stringify({ accounts: [{ name: 'Team' }, { name: 'Team' }] });
    expect(parseError(text, 'gateway.json')).toMatch(
      /accounts\[1\]\.id: duplicate account id \(an account without id gets one from its name\)/,
    );
  });

  test('a syntax error gives a position and never quotes the source', () => {
    const message = parseError('{"channels": [{"id": "x", "apiKey": sk-leaked-secret}]}', 'gateway.json');
    expect(message).toMatch(/^gateway\.json: not valid JSON/);
    expect(message).not.toContain('leaked');

    const yamlMessage = parseError('channels:\n  - id: x\n   apiKey: "sk-leaked-secret\n', 'gateway.yaml');
    expect(yamlMessage).toMatch(/^gateway\.yaml: not valid YAML .* at line \d+, column \d+$/);
    expect(yamlMessage).not.toContain('leaked');
  });
});

describe('deriveAccountId', () => {
  test('is stable, readable, and a valid id', () => {
    expect(deriveAccountId('Team A')).toBe(deriveAccountId('Team A'));
    expect(deriveAccountId('Team A')).toMatch(/^acct_team-a_[0-9a-f]{8}$/);
  });

  test('keeps apart names with the same slug', () => {
    expect(deriveAccountId('Team A')).not.toBe(deriveAccountId('team a'));
  });

  test('gives an id to a name without letters or digits', () => {
    expect(deriveAccountId('研究チーム')).toMatch(/^acct_[0-9a-f]{8}$/);
  });
});

describe('loadGatewayConfigFile', () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'gateway-config-'));
  });

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  test('reads a YAML file by its extension', async () => {
    const path = join(directory, 'gateway.yml');
    writeFileSync(path, yamlConfig);
    expect((await loadGatewayConfigFile(path)).channels[0]!.id).toBe('openai-main');
  });

  test('a missing file is an error naming it', async () => {
    const path = join(directory, 'absent.yaml');
    await expect(loadGatewayConfigFile(path)).rejects.toThrow(`${path}: cannot read the config file (ENOENT)`);
  });
});
