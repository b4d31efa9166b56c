/**
 * What the audit trail records of a change: when, who, from where, what, and the request that made
 * it. Ids and names only, never a secret: no raw key, no upstream key, no password.
 */

/** Every kind of change the trail records, as `GET /admin/v1/audit?action=` names them. */
export const auditActions = [
  'key.create',
  'key.update',
  'key.revoke',
  'account.create',
  'account.update',
  'account.delete',
  'channel.put',
  'channel.delete',
  'model.put',
  'model.delete',
  'member.put',
  'member.delete',
  'config.apply',
  'console.sign-in',
  'console.sign-in-failed',
] as const;

export type AuditAction = (typeof auditActions)[number];

/** Who made a change: an admin key (by id), or a console user (by e-mail address). */
export interface AuditActor {
  readonly kind: 'admin-key' | 'console-user';
  readonly id: string;
}

/** What a change touched: `{ kind: 'channel', id: 'openai' }`. */
export interface AuditTarget {
  readonly kind: 'account' | 'key' | 'channel' | 'model' | 'member' | 'config' | 'console-user';
  readonly id: string;
}

/** One record of the trail, as `GET /admin/v1/audit` answers it. */
export interface AuditEntry {
  /** ISO 8601, milliseconds, UTC. */
  readonly at: string;
  readonly actor: AuditActor;
  readonly action: AuditAction;
  readonly target: AuditTarget;
  /** The caller's address as API Gateway saw it, `null` when unknown. */
  readonly sourceIp: string | null;
  readonly requestId: string;
}
