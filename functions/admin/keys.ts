import { recordAudit } from '../shared/audit/record-audit.js';
import { generateApiKey } from '../shared/auth/api-key.js';
import { newKeyRecord } from '../shared/config/resource-records.js';
import { conflict, notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import {
  getKeyById,
  listKeysOfAccount,
  putKey,
  revokeKey,
  updateKey,
  type ApiKeyRecord,
} from '../shared/store/keys.js';
import { readEverySpend } from '../shared/accounting/spend.js';
import { unpricedWarnings } from '../shared/config/unpriced-warnings.js';
import { requireAccount } from './accounts.js';
import { budgetViewFrom, readBudgetView } from './budget-spending.js';
import { byCreation, pageOf, pageView } from './list-page.js';
import { parseWith } from './parse-with.js';
import { idPath, keyCreate, keyListQuery, keyPatch } from './schemas.js';
import { issuedKeyView, keyView } from './views.js';

type Request = GatewayRequest<unknown>;

const requireKey = async (pathParameters: Request['pathParameters']): Promise<ApiKeyRecord> => {
  const { id } = parseWith(idPath, pathParameters);
  const record = await getKeyById(id);
  if (!record) throw notFound(`No key with id '${id}'.`);
  return record;
};

const owner = (record: ApiKeyRecord) => ({ level: 'key', ownerId: record.id, accountId: record.accountId }) as const;

/** The key as shown, with its budget's spending in the current period. */
const shown = async (record: ApiKeyRecord) => keyView(record, await readBudgetView(record.budget, owner(record)));

/** `warnings` when the key's budget can reach a model without a price. */
const warningsFor = async (record: ApiKeyRecord): Promise<{ warnings?: string[] }> => {
  if (!record.budget) return {};
  const account = await requireAccount(record.accountId);
  const warnings = await unpricedWarnings(`Key '${record.id}'`, {
    accountModels: account.models,
    keyModels: record.models,
  });
  return warnings.length > 0 ? { warnings } : {};
};

const revokedConflict = (id: string) => conflict(`The key '${id}' is revoked; a revoked key cannot be changed.`);

/** POST /admin/v1/keys: the only answer that ever holds the plaintext key. */
export const create = async (request: Request) => {
  const { accountId, ...input } = parseWith(keyCreate, request.body ?? {});
  await requireAccount(accountId);
  const issued = generateApiKey();
  const record = await putKey(newKeyRecord(issued.key, accountId, input));
  await recordAudit(request, { action: 'key.create', target: { kind: 'key', id: record.id } });
  const budget = await readBudgetView(record.budget, owner(record));
  return json(201, { ...issuedKeyView(record, issued.key, budget), ...(await warningsFor(record)) });
};

/** GET /admin/v1/keys?accountId=&limit=&cursor=: oldest first, whole or a page at a time (list-page.ts). */
export const list = async ({ query }: Request) => {
  const { accountId, ...asked } = parseWith(keyListQuery, query);
  await requireAccount(accountId);
  const page = pageOf(await listKeysOfAccount(accountId), byCreation, `keys ${accountId}`, asked);
  // One read of every spend item, only when a key on the page has a budget.
  const spending = page.data.some((record) => record.budget) ? await readEverySpend() : new Map();
  return json(
    200,
    pageView(page, (record) => keyView(record, budgetViewFrom(spending, record.budget, owner(record)))),
  );
};

/** GET /admin/v1/keys/{id} */
export const get = async ({ pathParameters }: Request) => json(200, await shown(await requireKey(pathParameters)));

/** PATCH /admin/v1/keys/{id}: an `expiresAt` in the past expires the key now. */
export const update = async (request: Request) => {
  const record = await requireKey(request.pathParameters);
  const changes = parseWith(keyPatch, request.body ?? {});
  if (record.status === 'revoked') throw revokedConflict(record.id);
  // An empty patch changes nothing, and an update with no assignment is not a valid request to the store.
  if (Object.values(changes).every((value) => value === undefined)) return json(200, await shown(record));
  const updated = await updateKey(record.keyHash, changes);
  if (!updated) throw revokedConflict(record.id);
  await recordAudit(request, { action: 'key.update', target: { kind: 'key', id: record.id } });
  return json(200, { ...(await shown(updated)), ...(await warningsFor(updated)) });
};

/**
 * DELETE /admin/v1/keys/{id}: revokes the key and answers with it. The record stays, listed with its
 * status, for audit. Revoking a revoked key is not an error: the caller's intent already holds.
 */
export const remove = async (request: Request) => {
  const record = await requireKey(request.pathParameters);
  if (record.status === 'revoked') return json(200, keyView(record));
  const revoked = (await revokeKey(record.keyHash)) ?? (await getKeyById(record.id)) ?? record;
  await recordAudit(request, { action: 'key.revoke', target: { kind: 'key', id: record.id } });
  return json(200, keyView(revoked));
};
