import { requireAccount } from '../admin/accounts.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { requireUser } from './console-request.js';

/** GET /console/api/me: who is signed in, and their account as far as they may see it. */
export const me = async (request: GatewayRequest<unknown>) => {
  const user = await requireUser(request);
  const account = await requireAccount(user.accountId);
  return json(200, {
    user: { id: user.id, accountId: user.accountId, role: user.role },
    account: {
      id: account.id,
      name: account.name,
      models: account.models,
      quota: account.quota,
      status: account.status,
    },
  });
};
