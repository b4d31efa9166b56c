import type { Principal } from '../shared/auth/principal.js';
import { loadCatalog, usableModels, type CatalogModel } from '../shared/catalog/model-catalog.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import type { Account } from '../shared/store/accounts.js';
import { requireAccount } from '../admin/accounts.js';
import { resourceId } from '../shared/config/resource-schemas.js';
import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { parseWith } from '../admin/parse-with.js';
import { accountInScope } from './authorize.js';
import { requireUser } from './console-request.js';

const modelsQuery = lazySchema(() => z.object({ accountId: z.optional(resourceId()) }));

/** What a new key of this account could call: the same rule the API applies, with no key narrowing yet. */
export const modelsOfAccount = async (account: Account): Promise<CatalogModel[]> => {
  const asNewKey: Principal = {
    keyId: '',
    keyPrefix: '',
    accountId: account.id,
    role: 'user',
    expiresAt: null,
    accountModels: account.models,
    keyModels: null,
    keyRateLimit: null,
    accountRateLimit: null,
  };
  return usableModels(asNewKey, await loadCatalog());
};

/**
 * The public base URL as the client reached it. API Gateway's own domain puts the stage before the
 * path (`/prod/console/...` in `requestContext.path`); a custom domain or the local server does not.
 */
const baseUrlOf = (request: GatewayRequest<unknown>): string => {
  const { event, headers } = request;
  const local = event.requestContext?.stage === 'local';
  const protocol = local ? 'http' : (headers['x-forwarded-proto'] ?? 'https');
  const fullPath = event.requestContext?.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${protocol}://${headers.host ?? 'localhost'}${prefix}`;
};

/**
 * GET /console/api/models?accountId=: the models the user's account (an operator: any account) may
 * call, each with the price a request is charged at, and the gateway's base URL for snippets.
 */
export const list = async (request: GatewayRequest<unknown>) => {
  const user = await requireUser(request);
  const account = await requireAccount(accountInScope(user, parseWith(modelsQuery, request.query).accountId));
  const models = await modelsOfAccount(account);
  return json(200, {
    baseUrl: baseUrlOf(request),
    // The price a request is charged at, so that members know what their calls cost.
    data: models.map((model) => ({
      id: model.id,
      ownedBy: model.ownedBy,
      endpoints: model.endpoints,
      pricing: model.pricing,
      pricingSource: model.pricingSource,
    })),
  });
};
