import type * as z from '../../functions/shared/schemas/zod.js';
import { parseWith } from '../../functions/admin/parse-with.js';
import {
  accountCreate,
  accountPatch,
  channelPut,
  idPath,
  keyCreate,
  keyListQuery,
  keyPatch,
  modelPath,
  modelPut,
} from '../../functions/admin/schemas.js';
import { GatewayError } from '../../functions/shared/errors.js';

/** The 400 a request with this body (or these parameters) gets. */
const refusal = (schema: () => z.ZodMiniType, value: unknown): GatewayError => {
  try {
    parseWith(schema, value);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
};

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

describe('account bodies', () => {
  test('a name alone is a valid account', () => {
    expect(parseWith(accountCreate, { name: 'Team A' })).toEqual({ name: 'Team A' });
  });

  test('a missing name is missing_required on name', () => {
    expect(refusal(accountCreate, {})).toMatchObject({ status: 400, code: 'missing_required', param: 'name' });
  });

  test.each([
    ['an empty name', { name: '' }, 'name'],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, 'name'],
    ['an empty model id', { name: 'a', models: ['gpt-4o', ''] }, 'models[1]'],
    ['a model id with a space', { name: 'a', models: ['gpt-4o '] }, 'models[0]'],
    ['more than 1000 models', { name: 'a', models: Array.from({ length: 1001 }, (_, index) => `m${index}`) }, 'models'],
    ['a negative quota', { name: 'a', quota: { limit: -1 } }, 'quota.limit'],
    ['a quota in words', { name: 'a', quota: { limit: 'ten' } }, 'quota.limit'],
    ['a zero rpm', { name: 'a', rateLimit: { rpm: 0 } }, 'rateLimit.rpm'],
    ['a fractional tpm', { name: 'a', rateLimit: { tpm: 1.5 } }, 'rateLimit.tpm'],
    ['a misspelt field', { name: 'a', modles: ['gpt-4o'] }, 'modles'],
    ['a misspelt rate limit field', { name: 'a', rateLimit: { rps: 1 } }, 'rateLimit.rps'],
  ])('%s is invalid_value on its path', (_, body, param) => {
    expect(refusal(accountCreate, body)).toMatchObject({ status: 400, code: 'invalid_value', param });
  });

  test('a status other than active or disabled is refused on patch', () => {
    expect(refusal(accountPatch, { status: 'paused' })).toMatchObject({ code: 'invalid_value', param: 'status' });
  });

  test('a quota is 0 or at least the smallest USD amount counted (1e-12), up to a billion', () => {
    for (const limit of [0, 1e-12, 0.5, 1_000_000_000])
      expect(parseWith(accountCreate, { name: 'a', quota: { limit } })).toEqual({ name: 'a', quota: { limit } });
    for (const limit of [5e-324, 1e-131, 9e-13, 1_000_000_001])
      expect(refusal(accountCreate, { name: 'a', quota: { limit } })).toMatchObject({ param: 'quota.limit' });
  });

  test('a patch may be empty, or clear the quota and the model list', () => {
    expect(parseWith(accountPatch, {})).toEqual({});
    expect(parseWith(accountPatch, { quota: { limit: null }, models: null })).toEqual({
      quota: { limit: null },
      models: null,
    });
  });
});

describe('key bodies', () => {
  test('an account id alone is a valid key request', () => {
    expect(parseWith(keyCreate, { accountId: 'acct_1' })).toEqual({ accountId: 'acct_1' });
  });

  test('a missing account id is missing_required on accountId', () => {
    expect(refusal(keyCreate, { name: 'ci' })).toMatchObject({ code: 'missing_required', param: 'accountId' });
  });

  test.each([
    ['a role that does not exist', { role: 'root' }, 'role'],
    ['an expiry that is not ISO-8601', { expiresAt: 'tomorrow' }, 'expiresAt'],
    ['an expiry without a time zone', { expiresAt: '2999-01-01T00:00:00' }, 'expiresAt'],
    ['an expiry in the past', { expiresAt: anHourAgo() }, 'expiresAt'],
    ['a zero rpm', { rateLimit: { rpm: 0 } }, 'rateLimit.rpm'],
    ['a malformed account id', { accountId: 'acct 1' }, 'accountId'],
  ])('%s is invalid_value on its path', (_, fields, param) => {
    expect(refusal(keyCreate, { accountId: 'acct_1', ...fields })).toMatchObject({ code: 'invalid_value', param });
  });

  test('an expiry with an offset is stored in UTC', () => {
    const parsed = parseWith(keyCreate, { accountId: 'acct_1', expiresAt: '2999-01-01T02:00:00+02:00' });
    expect(parsed.expiresAt).toBe('2999-01-01T00:00:00.000Z');
  });

  test('a future expiry is accepted at creation', () => {
    expect(parseWith(keyCreate, { accountId: 'acct_1', expiresAt: inAnHour() }).expiresAt).toBeDefined();
  });

  test('a patch may set an expiry in the past, which expires the key now', () => {
    const past = anHourAgo();
    expect(parseWith(keyPatch, { expiresAt: past })).toEqual({ expiresAt: past });
  });

  test('a patch cannot change the role', () => {
    expect(refusal(keyPatch, { role: 'admin' })).toMatchObject({ code: 'invalid_value', param: 'role' });
  });
});

describe('channel bodies', () => {
  test('defaults fill priority, weight and enabled', () => {
    expect(parseWith(channelPut, { type: 'anthropic', models: ['claude-sonnet-4'] })).toEqual({
      type: 'anthropic',
      models: ['claude-sonnet-4'],
      priority: 0,
      weight: 1,
      enabled: true,
    });
  });

  test('an openai channel without baseUrl is missing_required on baseUrl', () => {
    expect(refusal(channelPut, { type: 'openai', models: ['gpt-4o'] })).toMatchObject({
      code: 'missing_required',
      param: 'baseUrl',
    });
  });

  test('a bedrock channel refuses an apiKey it would never use, and takes none', () => {
    const refused = refusal(channelPut, { type: 'bedrock', apiKey: 'AKIA-not-needed', models: ['nova-pro'] });
    expect(refused).toMatchObject({ code: 'invalid_value', param: 'apiKey' });
    expect(refused.message).toContain('IAM role');
    expect(parseWith(channelPut, { type: 'bedrock', models: ['nova-pro'] })).toMatchObject({ type: 'bedrock' });
  });

  test('a missing model list is missing_required on models', () => {
    expect(refusal(channelPut, { type: 'demo' })).toMatchObject({ code: 'missing_required', param: 'models' });
  });

  test.each([
    ['an unknown type', { type: 'cohere' }, 'type'],
    ['a baseUrl that is not http', { baseUrl: 'ftp://example.com/v1' }, 'baseUrl'],
    ['a baseUrl that is not a URL', { baseUrl: 'api.openai.com' }, 'baseUrl'],
    ['an unknown endpoint', { endpoints: ['chat', 'fax'] }, 'endpoints[1]'],
    ['an empty endpoint list', { endpoints: [] }, 'endpoints'],
    ['a fractional priority', { priority: 1.5 }, 'priority'],
    ['a zero weight', { weight: 0 }, 'weight'],
    ['an enabled flag in words', { enabled: 'yes' }, 'enabled'],
    ['an empty upstream model name', { modelMap: { 'gpt-4o': '' } }, 'modelMap.gpt-4o'],
    ['an apiKey that is not a string', { apiKey: 42 }, 'apiKey'],
    ['a misspelt field', { base_url: 'https://api.openai.com/v1' }, 'base_url'],
  ])('%s is invalid_value on its path', (_, fields, param) => {
    const body = { type: 'openai', baseUrl: 'https://api.openai.com/v1', models: ['gpt-4o'], ...fields };
    expect(refusal(channelPut, body)).toMatchObject({ code: 'invalid_value', param });
  });
});

describe('model bodies', () => {
  test('an empty body clears the settings', () => {
    expect(parseWith(modelPut, {})).toEqual({});
  });

  test('pricing without an output price is missing_required on pricing.outputPerMTok', () => {
    expect(refusal(modelPut, { pricing: { inputPerMTok: 1 } })).toMatchObject({
      code: 'missing_required',
      param: 'pricing.outputPerMTok',
    });
  });

  test.each([
    ['a negative input price', { pricing: { inputPerMTok: -1, outputPerMTok: 1 } }, 'pricing.inputPerMTok'],
    [
      'a negative cached price',
      { pricing: { inputPerMTok: 1, outputPerMTok: 1, cachedInputPerMTok: -0.1 } },
      'pricing.cachedInputPerMTok',
    ],
    ['an empty alias', { aliases: [''] }, 'aliases[0]'],
    ['an empty owner', { ownedBy: '' }, 'ownedBy'],
  ])('%s is invalid_value on its path', (_, body, param) => {
    expect(refusal(modelPut, body)).toMatchObject({ code: 'invalid_value', param });
  });
});

describe('path and query parameters', () => {
  test('a channel id with a space is invalid_value on id', () => {
    expect(refusal(idPath, { id: 'my channel' })).toMatchObject({ code: 'invalid_value', param: 'id' });
  });

  test('a model with a space is invalid_value on model, and one with a slash is fine', () => {
    expect(refusal(modelPath, { model: 'gpt 4o' })).toMatchObject({ code: 'invalid_value', param: 'model' });
    expect(parseWith(modelPath, { model: 'meta/llama-3:70b' })).toEqual({ model: 'meta/llama-3:70b' });
  });

  test('listing keys without an account id is missing_required on accountId', () => {
    expect(refusal(keyListQuery, {})).toMatchObject({ code: 'missing_required', param: 'accountId' });
  });
});
