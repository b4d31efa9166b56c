import { readUsage } from '../shared/accounting/usage-query.js';
import { forbidden, notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { chatCompletionRequestSchema } from '../shared/protocols/openai-chat/chat-completion-request.js';
import { chatAdapterOf } from '../shared/providers/chat-adapters.js';
import { servedEndpoints } from '../shared/providers/provider-capabilities.js';
import { channelWithKey } from '../shared/routing/channel-credentials.js';
import { channelCoolingUntil } from '../shared/routing/channel-health.js';
import { getChannel, listChannels, mappedModelName } from '../shared/store/channels.js';
import { redactSecrets } from '../shared/security/redact-secrets.js';
import type { ConsoleUser } from '../shared/console/console-user.js';
import { channelTimeouts } from '../shared/upstream/upstream-http.js';
import { parseWith } from '../admin/parse-with.js';
import { idPath } from '../admin/schemas.js';
import { isOperator } from './authorize.js';
import { requireUser } from './console-request.js';

const HOUR_MS = 3_600_000;

const requireOperator = (user: ConsoleUser): void => {
  if (!isOperator(user)) throw forbidden('Only operators (the admin role) check channels.');
};
/** A test call waits at most this long for its answer: the console's own function times out at 29 s. */
const TEST_TIMEOUT_MS = 20_000;

/**
 * GET /console/api/channels/health: for each channel, how its requests of the last hour ended (from
 * the usage records, which every function instance writes) and, where this instance has seen it fail,
 * until when it cools down here. Operators only.
 */
export const health = async (request: GatewayRequest<unknown>) => {
  requireOperator(await requireUser(request));
  const to = new Date().toISOString();
  const from = new Date(Date.now() - HOUR_MS).toISOString();
  const [channels, records] = await Promise.all([listChannels(), readUsage({ from, to })]);
  return json(200, {
    from,
    to,
    data: channels.map((channel) => {
      const own = records.filter((record) => record.channelId === channel.id);
      const failed = own.filter((record) => record.status === 'upstream_error' || record.status === 'timeout');
      const coolingUntil = channelCoolingUntil(channel.id);
      return {
        id: channel.id,
        requests: own.length,
        failures: failed.length,
        lastSuccessAt: own.find((record) => record.status === 'success')?.time ?? null,
        lastFailureAt: failed[0]?.time ?? null,
        coolingUntil: coolingUntil ? new Date(coolingUntil).toISOString() : null,
      };
    }),
  });
};

/**
 * POST /console/api/channels/{id}/test: one small chat completion (a one-word prompt, at most 8 tokens
 * back) sent straight to this channel (not Bedrock's) with its first model, whatever the routing would choose; the
 * answer says whether it worked, how long it took, and the upstream's error if not. It is not metered
 * and changes no routing state. Operators only; a channel that serves no chat is a 400.
 */
export const test = async (request: GatewayRequest<unknown>) => {
  requireOperator(await requireUser(request));
  const { id } = parseWith(idPath, request.pathParameters);
  const channel = await getChannel(id);
  if (!channel) throw notFound(`No channel with id '${id}'.`);
  const model = channel.models[0];
  if (!model || !servedEndpoints(channel.type).includes('chat')) {
    return json(200, {
      ok: false,
      latencyMs: 0,
      model: model ?? null,
      message: 'The channel serves no chat model to test.',
    });
  }
  const body = parseWith(chatCompletionRequestSchema, {
    model,
    max_tokens: 8,
    messages: [{ role: 'user', content: 'Say OK.' }],
  });
  const started = performance.now();
  try {
    const withKey = await channelWithKey(channel);
    await chatAdapterOf(channel.type).complete({
      request: body,
      upstreamModel: mappedModelName(channel, model) ?? model,
      channel: withKey,
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
      timeouts: channelTimeouts(channel),
    });
    return json(200, { ok: true, latencyMs: Math.round(performance.now() - started), model });
  } catch (error) {
    const failure = error as Error & { status?: number };
    return json(200, {
      ok: false,
      latencyMs: Math.round(performance.now() - started),
      model,
      status: failure.status ?? null,
      // The upstream's own words, with any credential it echoed removed.
      message: redactSecrets(failure.message),
    });
  }
};
