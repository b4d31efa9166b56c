import { recordAudit } from '../shared/audit/record-audit.js';
import { applyGatewayConfig, type AppliedConfig } from '../shared/config/apply-config.js';
import { findPlaceholder } from '../shared/config/config-placeholders.js';
import { GatewayConfigError, gatewayConfigSchema } from '../shared/config/gateway-config-schema.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { parseWith } from './parse-with.js';

/** What an apply brought in line, as the audit trail names its target: `channels:2,models:1,accounts:1,keys:3,members:2`. */
const appliedSummary = (applied: AppliedConfig): string =>
  `channels:${applied.channels},models:${applied.models},accounts:${applied.accounts},keys:${applied.keys},members:${applied.members}`;

/**
 * POST /admin/v1/apply: applies a declarative config (the `GATEWAY_CONFIG` document, as JSON) the way
 * the local runtime does on start; idempotent. `gatewayctl apply -f` sends the file here, with its
 * `${ENV}` references already resolved on the operator's machine. The server never resolves one
 * itself (its environment holds its own credentials): a document still holding one is a 400 naming
 * the field.
 */
export const apply = async (request: GatewayRequest<unknown>) => {
  const { body } = request;
  const placeholder = findPlaceholder(body);
  if (placeholder) {
    throw invalidValue(
      `${placeholder.param || 'The document'} holds the placeholder \${${placeholder.name}}: placeholders are resolved only by ` +
        "`gatewayctl apply` and for GATEWAY_CONFIG at start, from the operator's environment; send the value itself.",
      placeholder.param || null,
    );
  }
  const config = parseWith(gatewayConfigSchema, body ?? {});
  try {
    const applied = await applyGatewayConfig(config);
    await recordAudit(request, { action: 'config.apply', target: { kind: 'config', id: appliedSummary(applied) } });
    return json(200, { applied });
  } catch (error) {
    if (error instanceof GatewayConfigError) throw invalidValue(error.message, null);
    throw error;
  }
};
