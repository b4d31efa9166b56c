import { USAGE_RECORD_EVENT } from '../shared/accounting/usage-delivery.js';
import { usageSources, usageStatuses, type UsageRecord } from '../shared/accounting/usage-records.js';
import { endpointKinds } from '../shared/store/channels.js';
import { z } from '../shared/schemas/zod.js';

const count = z.number().check(z.int(), z.nonnegative());
/** A figure as DynamoDB holds it: JSON has no NaN or infinity, and a null here is a figure that was one. */
const figure = z.number();

/** A usage record as `usageRecordLine` writes it: what the store would refuse is refused here first. */
const usageLineSchema = z.object({
  event: z.literal(USAGE_RECORD_EVENT),
  usage: z.object({
    requestId: z.string().check(z.minLength(1)),
    time: z.iso.datetime(),
    accountId: z.string().check(z.minLength(1)),
    keyId: z.string().check(z.minLength(1)),
    model: z.string(),
    channelId: z.nullable(z.string()),
    endpoint: z.enum(endpointKinds),
    stream: z.boolean(),
    status: z.enum(usageStatuses),
    httpStatus: count,
    attempts: count,
    promptTokens: count,
    completionTokens: count,
    totalTokens: count,
    cachedTokens: count,
    cacheWriteTokens: z.optional(count),
    reasoningTokens: count,
    usageSource: z.enum(usageSources),
    cost: figure,
    latencyMs: figure,
    overheadMs: z.optional(figure),
  }),
});

/** The record a usage line holds, or undefined for a line that is not one (or not whole). */
export const recordOfUsageLine = (line: string): UsageRecord | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const result = usageLineSchema.safeParse(parsed);
  return result.success ? (result.data.usage as UsageRecord) : undefined;
};
