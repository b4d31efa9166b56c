import type { RouteDefinition } from '../../../functions/shared/routes.js';

/** Ids the fuzzed requests may touch: an account and a key made for them, never the fixtures others use. */
export interface FuzzTargets {
  readonly accountId: string;
  readonly keyId: string;
}

const chatMessages = [{ role: 'user', content: 'hello there' }];
const geminiContents = {
  contents: [{ role: 'user', parts: [{ text: 'hello there' }] }],
  generationConfig: { maxOutputTokens: 16, temperature: 0.5 },
};

/**
 * A valid body for each route, the starting point of the mutations: a mutated valid body reaches
 * deeper into validation and translation than random bytes do.
 */
export const sampleBody = (route: RouteDefinition, targets: FuzzTargets): Record<string, unknown> | undefined => {
  switch (`${route.method} ${route.path}`) {
    case 'POST /v1/chat/completions':
      return {
        model: 'demo-1',
        messages: chatMessages,
        max_tokens: 16,
        temperature: 0.5,
        stream: false,
        stream_options: null,
      };
    case 'POST /v1/messages':
      return { model: 'demo-1', max_tokens: 16, system: 'be brief', messages: chatMessages, stream: false };
    case 'POST /v1/messages/count_tokens':
      return { model: 'demo-1', messages: chatMessages };
    case 'POST /v1beta/models/{modelAction}':
    case 'POST /v1/models/{modelAction}':
      return geminiContents;
    case 'POST /v1/responses':
      return { model: 'demo-1', input: 'hello there', max_output_tokens: 16, stream: false };
    case 'POST /v1/embeddings':
      return { model: 'demo-1', input: ['hello', 'there'] };
    case 'POST /v1/images/generations':
      return { model: 'demo-1', prompt: 'a lighthouse', n: 1, response_format: 'b64_json' };
    case 'POST /v1/audio/speech':
      return { model: 'demo-1', input: 'hello', voice: 'alloy', response_format: 'wav' };
    case 'POST /admin/v1/accounts':
      return { name: 'fuzzed account', models: ['demo-1'], quota: { limit: 5 }, rateLimit: { rpm: 100, tpm: 10000 } };
    case 'PATCH /admin/v1/accounts/{id}':
      return { name: 'renamed', status: 'active', rateLimit: null };
    case 'POST /admin/v1/keys':
      return {
        accountId: targets.accountId,
        name: 'fuzzed key',
        role: 'user',
        models: ['demo-1'],
        rateLimit: { rpm: 10 },
      };
    case 'PATCH /admin/v1/keys/{id}':
      return { name: 'renamed', rateLimit: { rpm: 5 }, allowedIps: ['127.0.0.1/32'] };
    case 'PUT /admin/v1/channels/{id}':
      return { type: 'demo', models: ['fuzz-model'], priority: 1, weight: 2, enabled: true };
    case 'PUT /admin/v1/models/{model}':
      return { pricing: { inputPerMTok: 1, outputPerMTok: 2 }, aliases: ['fuzz-alias'], ownedBy: 'fuzzers' };
    case 'POST /admin/v1/apply':
      return {
        channels: [{ id: 'fuzz-applied', type: 'demo', models: ['fuzz-applied-1'] }],
        models: [{ id: 'fuzz-applied-1', ownedBy: 'fuzzers' }],
      };
    default:
      return undefined;
  }
};

/**
 * Values for a route's path parameters: the fuzz targets' own ids, names that are also
 * Object.prototype's, and ids nobody has. Never the ids of the channels and models the check relies on.
 */
export const pathParameterSamples = (name: string, targets: FuzzTargets): string[] => {
  switch (name) {
    case 'id':
      return [targets.accountId, targets.keyId, 'fuzz-channel', 'no-such-id'];
    case 'model':
      return ['fuzz-model', 'no/such:model@1'];
    case 'modelAction':
      return [
        'demo-1:generateContent',
        'demo-1:streamGenerateContent',
        'demo-1:countTokens',
        'demo-1',
        'no-such-model:generateContent',
      ];
    default:
      return ['x'];
  }
};
