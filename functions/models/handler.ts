import { loadCatalog, usableModels } from '../shared/catalog/model-catalog.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { formatModelList, selectModelListFormat } from './format-model-list.js';

/** GET /v1/models: the models this key may use, in the format its carrier asks for. */
export const handler = gatewayHandler(
  { auth: 'user', carriers: ['bearer', 'x-api-key', 'x-goog-api-key', 'query-key'] },
  async ({ event, headers, query, principal }) => {
    // The Gemini-style path always answers in Google's format, whatever carried the key.
    const format = event.resource === '/v1beta/models' ? 'gemini' : selectModelListFormat(headers, query);
    const models = usableModels(principal, await loadCatalog());
    return json(200, formatModelList(format, models));
  },
);
