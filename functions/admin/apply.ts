import { applyGatewayConfig } from '../shared/config/apply-config.js';
import { GatewayConfigError, gatewayConfigSchema } from '../shared/config/gateway-config-schema.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { parseWith } from './parse-with.js';

/**
 * POST /admin/v1/apply: applies a declarative config (the `GATEWAY_CONFIG` document, as JSON) the way
 * the local runtime does on start; idempotent. `gatewayctl apply -f` sends the file here, with its
 * `${ENV}` references already resolved on the operator's machine.
 */
export const apply = async ({ body }: GatewayRequest<unknown>) => {
  const config = parseWith(gatewayConfigSchema, body ?? {});
  try {
    return json(200, { applied: await applyGatewayConfig(config) });
  } catch (error) {
    if (error instanceof GatewayConfigError) throw invalidValue(error.message, null);
    throw error;
  }
};
