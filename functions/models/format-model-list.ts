import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import { endpointPaths } from './endpoint-paths.js';
import type { EndpointKind } from '../shared/store/channels.js';

/** The three list formats of GET /v1/models (spec, DESIGN §3.3). */
export type ModelListFormat = 'openai' | 'anthropic' | 'gemini';

/**
 * The spec's selection rules, in order: x-api-key with the Anthropic version header → Anthropic's
 * format; the Google key header or `?key=` → Google's; anything else → OpenAI's.
 */
export const selectModelListFormat = (
  headers: Readonly<Record<string, string>>,
  query: Readonly<Record<string, string>>,
): ModelListFormat => {
  if (headers['x-api-key'] !== undefined && headers['anthropic-version'] !== undefined) return 'anthropic';
  if (headers['x-goog-api-key'] !== undefined || query.key !== undefined) return 'gemini';
  return 'openai';
};

const geminiMethods: Partial<Record<EndpointKind, readonly string[]>> = {
  chat: ['generateContent', 'streamGenerateContent', 'countTokens'],
  embeddings: ['embedContent', 'batchEmbedContents'],
};

export const formatOpenAiList = (models: readonly CatalogModel[]) => ({
  object: 'list',
  data: models.map((model) => ({
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.ownedBy,
    supported_endpoints: model.endpoints.map((kind) => endpointPaths[kind]),
  })),
});

export const formatAnthropicList = (models: readonly CatalogModel[]) => ({
  data: models.map((model) => ({
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: new Date(model.created * 1000).toISOString().replace('.000Z', 'Z'),
  })),
  has_more: false,
  first_id: models[0]?.id ?? null,
  last_id: models.at(-1)?.id ?? null,
});

export const formatGeminiList = (models: readonly CatalogModel[]) => ({
  models: models.map((model) => ({
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.id,
    supportedGenerationMethods: [...new Set(model.endpoints.flatMap((kind) => geminiMethods[kind] ?? []))],
  })),
});

export const formatModelList = (format: ModelListFormat, models: readonly CatalogModel[]): unknown => {
  switch (format) {
    case 'openai':
      return formatOpenAiList(models);
    case 'anthropic':
      return formatAnthropicList(models);
    case 'gemini':
      return formatGeminiList(models);
    default: {
      const unreachable: never = format;
      throw new Error(`unknown list format ${String(unreachable)}`);
    }
  }
};
