import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { pageFields } from './list-page.js';
import {
  accountFields,
  accountStatus,
  channelBody,
  dateTime,
  keyFields,
  modelFields,
  modelId,
  resourceId,
} from '../shared/config/resource-schemas.js';

/**
 * Request shapes of the admin API (DESIGN §3.2). Bodies are strict objects, so a misspelt field is a
 * 400 that names it rather than a setting silently ignored.
 */

export const accountCreate = lazySchema(() => z.strictObject(accountFields()));

export const accountPatch = lazySchema(() =>
  z.strictObject({
    ...z.partial(z.strictObject(accountFields())).shape,
    status: z.optional(accountStatus()),
  }),
);

/**
 * An expiry: a date-time not yet past. A key issued already expired is a mistake; a PATCH to a past
 * time is how a key is expired now.
 */
export const futureDateTime = lazySchema(() =>
  dateTime().check(z.refine((value) => Date.parse(value) > Date.now(), 'must be in the future')),
);

export const keyCreate = lazySchema(() =>
  z.strictObject({
    accountId: resourceId(),
    ...keyFields(),
    expiresAt: z.nullish(futureDateTime()),
  }),
);

export const keyPatch = lazySchema(() => {
  const { name, models, rateLimit, expiresAt, allowedIps, budget } = keyFields();
  return z.strictObject({ name, models, rateLimit, expiresAt, allowedIps, budget });
});

export const channelPut = channelBody;

export const modelPut = lazySchema(() => z.strictObject(modelFields()));

// Path and query parameters: lenient objects (API Gateway adds its own entries), strict values.
export const idPath = lazySchema(() => z.object({ id: resourceId() }));
export const modelPath = lazySchema(() => z.object({ model: modelId() }));
export const keyListQuery = lazySchema(() => z.object({ accountId: resourceId(), ...pageFields() }));
