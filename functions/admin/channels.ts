import { recordAudit } from '../shared/audit/record-audit.js';
import { announceDemoRetirement } from '../shared/catalog/built-in-demo.js';
import { requireAllowedDestination } from '../shared/config/channel-destination.js';
import { channelRecord } from '../shared/config/resource-records.js';
import { notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { deleteChannelKey, saveChannelKey } from '../shared/secrets/channel-key.js';
import { deleteChannel, getChannel, listChannels, putChannel } from '../shared/store/channels.js';
import { parseWith } from './parse-with.js';
import { channelPut, idPath } from './schemas.js';
import { channelView, deletedView, listView } from './views.js';

type Request = GatewayRequest<unknown>;

const channelNotFound = (id: string) => notFound(`No channel with id '${id}'.`);

/** PUT /admin/v1/channels/{id}: creates or replaces; the answer never holds the upstream key. */
export const put = async (request: Request) => {
  const { id } = parseWith(idPath, request.pathParameters);
  const input = parseWith(channelPut, request.body ?? {});
  await requireAllowedDestination(id, input.baseUrl);
  const existing = await getChannel(id);
  const key = await saveChannelKey(id, input.apiKey, existing, input);
  const channel = await putChannel(channelRecord(id, input, key, existing));
  await recordAudit(request, { action: 'channel.put', target: { kind: 'channel', id } });
  if (!existing) await announceDemoRetirement([id]);
  return json(200, channelView(channel));
};

/** GET /admin/v1/channels: highest priority first. */
export const list = async () => json(200, listView((await listChannels()).map(channelView)));

/** GET /admin/v1/channels/{id} */
export const get = async ({ pathParameters }: Request) => {
  const { id } = parseWith(idPath, pathParameters);
  const channel = await getChannel(id);
  if (!channel) throw channelNotFound(id);
  return json(200, channelView(channel));
};

/** DELETE /admin/v1/channels/{id}: its key's secret first, so that a failure leaves a retryable delete. */
export const remove = async (request: Request) => {
  const { id } = parseWith(idPath, request.pathParameters);
  const channel = await getChannel(id);
  if (!channel) throw channelNotFound(id);
  await deleteChannelKey(channel);
  if (!(await deleteChannel(id))) throw channelNotFound(id);
  await recordAudit(request, { action: 'channel.delete', target: { kind: 'channel', id } });
  return json(200, deletedView(id));
};
