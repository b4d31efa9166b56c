import { auditResponse } from '../admin/audit.js';
import { forbidden } from '../shared/errors.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { isOperator } from './authorize.js';
import { requireUser } from './console-request.js';

/**
 * GET /console/api/audit?limit=&cursor=&action=&actorId=&from=&to=: the audit trail for operators, as
 * `GET /admin/v1/audit` answers it. The trail spans every account, so no other role reads it.
 */
export const list = async (request: GatewayRequest<unknown>) => {
  const user = await requireUser(request);
  if (!isOperator(user)) throw forbidden('Only operators (the admin role) may read the audit trail.');
  return auditResponse(request.query);
};
