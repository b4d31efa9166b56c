import * as z from '../shared/schemas/zod.js';
import { lazySchema } from '../shared/schemas/lazy-schema.js';
import { requireAccount } from '../admin/accounts.js';
import { parseWith } from '../admin/parse-with.js';
import { futureDateTime, idPath, keyPatch } from '../admin/schemas.js';
import { issuedKeyView, keyView, listView } from '../admin/views.js';
import { consoleUserActor } from '../shared/audit/audit-actor.js';
import { recordAudit } from '../shared/audit/record-audit.js';
import { generateApiKey } from '../shared/auth/api-key.js';
import { displayName, modelList, resourceId } from '../shared/config/resource-schemas.js';
import { newKeyRecord } from '../shared/config/resource-records.js';
import { conflict, forbidden, invalidValue } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import type { Account } from '../shared/store/accounts.js';
import { getKeyById, listKeysOfAccount, putKey, revokeKey, updateKey } from '../shared/store/keys.js';
import { accountInScope, mayTouchKey, requireTouchableKey, seesWholeAccount } from './authorize.js';
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

/** A key's models can only narrow what its account may call: anything else is the field's 400. */
const requireModelsOfAccount = async (account: Account, models: readonly string[]): Promise<void> => {
  const allowed = new Set((await modelsOfAccount(account)).map((model) => model.id));
  const index = models.findIndex((model) => !allowed.has(model));
  if (index >= 0) throw invalidValue(`The account may not use the model '${models[index]}'.`, `models[${index}]`);
};

/** GET /console/api/keys: the keys the user may see, newest first. */
export const list = async (request: Request) => {
  const user = await requireUser(request);
  const accountId = accountInScope(user, parseWith(keyListQuery, request.query).accountId);
  const records = (await listKeysOfAccount(accountId)).filter((record) => mayTouchKey(user, record));
  records.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return json(200, listView(records.map((record) => keyView(record))));
};

/**
 * POST /console/api/keys: a user key of the user's account, owned by them. Its models can only narrow
 * what the account may call; the plaintext key is in this answer and nowhere else.
 */
export const create = async (request: Request) => {
  const user = await requireUser(request);
  const { accountId: requested, ...input } = parseWith(keyCreate, request.body ?? {});
  const account = await requireAccount(accountInScope(user, requested));
  if (input.models) await requireModelsOfAccount(account, input.models);
  const issued = generateApiKey();
  const record = await putKey({ ...newKeyRecord(issued.key, account.id, { ...input, role: 'user' }), owner: user.id });
  await recordAudit(request, {
    action: 'key.create',
    actor: consoleUserActor(user),
    target: { kind: 'key', id: record.id },
  });
  return json(201, issuedKeyView(record, issued.key));
};

/** DELETE /console/api/keys/{id}: revokes a key the user may touch; others' keys are "not found". */
export const revoke = async (request: Request) => {
  const user = await requireUser(request);
  const { id } = parseWith(idPath, request.pathParameters);
  const record = requireTouchableKey(user, id, await getKeyById(id));
  if (record.status === 'revoked') return json(200, keyView(record));
  const revoked = (await revokeKey(record.keyHash)) ?? (await getKeyById(record.id)) ?? record;
  await recordAudit(request, {
    action: 'key.revoke',
    actor: consoleUserActor(user),
    target: { kind: 'key', id: record.id },
  });
  return json(200, keyView(revoked));
};

/**
 * PATCH /console/api/keys/{id}: renames a key, narrows or widens its models (within the account's),
 * moves its expiry (a past time expires it now); its limits and IP ranges are for account admins and
 * operators, since a member could otherwise lift a limit put on them. Others' keys are "not found".
 */
export const update = async (request: Request) => {
  const user = await requireUser(request);
  const { id } = parseWith(idPath, request.pathParameters);
  const record = requireTouchableKey(user, id, await getKeyById(id));
  const changes = parseWith(keyPatch, request.body ?? {});
  if (!seesWholeAccount(user) && (changes.rateLimit !== undefined || changes.allowedIps !== undefined))
    throw forbidden("Only an account admin changes a key's limits or IP ranges.");
  if (record.status === 'revoked') throw conflict(`The key '${id}' is revoked; a revoked key cannot be changed.`);
  if (changes.models) await requireModelsOfAccount(await requireAccount(record.accountId), changes.models);
  if (Object.values(changes).every((value) => value === undefined)) return json(200, keyView(record));
  const updated = await updateKey(record.keyHash, changes);
  if (!updated) throw conflict(`The key '${id}' is revoked; a revoked key cannot be changed.`);
  await recordAudit(request, { action: 'key.update', actor: consoleUserActor(user), target: { kind: 'key', id } });
  return json(200, keyView(updated));
};
