import { queryUsage, usageTotals } from '../shared/accounting/usage-query.js';
import type { UsageRecord } from '../shared/accounting/usage-records.js';
import { dateTime, resourceId } from '../shared/config/resource-schemas.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import * as z from 'zod';
import { parseWith } from './parse-with.js';

const usageQuery = z.object({
  accountId: resourceId.optional(),
  keyId: resourceId.optional(),
  from: dateTime.optional(),
  to: dateTime.optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
}).refine((query) => !query.from || !query.to || query.from <= query.to, {
  path: ['from'],
  message: "must not be after 'to'",
});

const usageView = (record: UsageRecord) => ({
  requestId: record.requestId,
  time: record.time,
  accountId: record.accountId,
  keyId: record.keyId,
  model: record.model,
  channelId: record.channelId,
  endpoint: record.endpoint,
  stream: record.stream,
  status: record.status,
  httpStatus: record.httpStatus,
  attempts: record.attempts,
  promptTokens: record.promptTokens,
  completionTokens: record.completionTokens,
  totalTokens: record.totalTokens,
  cachedTokens: record.cachedTokens,
  reasoningTokens: record.reasoningTokens,
  usageSource: record.usageSource,
  cost: record.cost ?? 0,
  latencyMs: record.latencyMs,
  overheadMs: record.overheadMs ?? null,
});

/**
 * GET /admin/v1/usage?accountId=&keyId=&from=&to=&limit=: the records in time order, with totals over
 * the records returned. Without accountId or keyId the whole table is scanned.
 */
export const list = async ({ query }: GatewayRequest<unknown>) => {
  const filter = parseWith(usageQuery, query);
  const { records, truncated } = await queryUsage(filter);
  return json(200, { data: records.map(usageView), totals: usageTotals(records), truncated });
};
