import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { requireAccount } from '../admin/accounts.js';
import { parseWith } from '../admin/parse-with.js';
import { futureDateTime, idPath } from '../admin/schemas.js';
import { issuedKeyView, keyView, listView } from '../admin/views.js';
import { generateApiKey } from '../shared/auth/api-key.js';
import { displayName, modelList, resourceId } from '../shared/config/resource-schemas.js';
import { newKeyRecord } from '../shared/config/resource-records.js';
import { invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { getKeyById, listKeysOfAccount, putKey, revokeKey } from '../shared/store/keys.js';
import { accountInScope, mayTouchKey, requireTouchableKey } from './authorize.js';
import { requireUser } from './console-request.js';
import { modelsOfAccount } from './models.js';

type Request = GatewayRequest<unknown>;

const keyCreate = lazySchema(() =>
  z.strictObject({
    name: displayName(),
    expiresAt: z.nullish(futureDateTime()),
    /** Narrows the account's models; absent or `null` keeps them all. */
    models: z.nullish(modelList().check(z.minLength(1))),
    /** Operators only: the account to create the key in. */
    accountId: z.optional(resourceId()),
  }),
);

const keyListQuery = lazySchema(() => z.object({ accountId: z.optional(resourceId()) }));

/** GET /console/api/keys: the keys the user may see, newest first. */
export const list = async (request: Request) => {
  const user = await requireUser(request);
  const accountId = accountInScope(user, parseWith(keyListQuery, request.query).accountId);
  const records = (await listKeysOfAccount(accountId)).filter((record) => mayTouchKey(user, record));
  records.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return json(200, listView(records.map(keyView)));
};

/**
 * POST /console/api/keys: a user key of the user's account, owned by them. Its models can only narrow
 * what the account may call; the plaintext key is in this answer and nowhere else.
 */
export const create = async (request: Request) => {
  const user = await requireUser(request);
  const { accountId: requested, ...input } = parseWith(keyCreate, request.body ?? {});
  const account = await requireAccount(accountInScope(user, requested));
  if (input.models) {
    const allowed = new Set((await modelsOfAccount(account)).map((model) => model.id));
    const index = input.models.findIndex((model) => !allowed.has(model));
    if (index >= 0)
      throw invalidValue(`The account may not use the model '${input.models[index]}'.`, `models[${index}]`);
  }
  const issued = generateApiKey();
  const record = await putKey({ ...newKeyRecord(issued.key, account.id, { ...input, role: 'user' }), owner: user.id });
  return json(201, issuedKeyView(record, issued.key));
};

/** DELETE /console/api/keys/{id}: revokes a key the user may touch; others' keys are "not found". */
export const revoke = async (request: Request) => {
  const user = await requireUser(request);
  const { id } = parseWith(idPath, request.pathParameters);
  const record = requireTouchableKey(user, id, await getKeyById(id));
  if (record.status === 'revoked') return json(200, keyView(record));
  const revoked = (await revokeKey(record.keyHash)) ?? (await getKeyById(record.id)) ?? record;
  return json(200, keyView(revoked));
};
