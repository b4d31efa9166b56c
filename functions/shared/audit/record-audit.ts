import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Principal } from '../auth/principal.js';
import { log } from '../log.js';
import { putAuditRecord } from '../store/audit-records.js';
import { principalActor } from './audit-actor.js';
import type { AuditAction, AuditActor, AuditEntry, AuditTarget } from '../store/audit-entry.js';
import { auditExpiry } from './audit-retention.js';

/** What `recordAudit` reads of a request: its id and source address, and who made it. */
export interface AuditedRequest {
  readonly event: Pick<APIGatewayProxyEvent, 'requestContext'>;
  readonly requestId: string;
  /** An authenticated request's caller; read only when the change names no actor of its own. */
  readonly principal?: Principal;
  /** Tells the request's log line who acted (the gateway's handler sets it). */
  noteActor?(actor: AuditActor): void;
}

export interface AuditedChange {
  readonly action: AuditAction;
  readonly target: AuditTarget;
  /**
   * Who made the change. Absent: the request's admin principal (an admin key, or an operator's
   * console session). Console routes, which authenticate themselves, pass `consoleUserActor(user)`.
   */
  readonly actor?: AuditActor;
}

const UNKNOWN_ACTOR: AuditActor = { kind: 'admin-key', id: 'unknown' };

/**
 * Records a change in the audit trail: when, who, from which address, what, and the request's id.
 * Call it once the change is made, and await it: the record is written before the response goes out.
 * It never fails the request: the change has happened, and a failed write is logged in full instead
 * (the log line is then the record). Never pass a secret: targets and actors are ids.
 */
export const recordAudit = async (request: AuditedRequest, change: AuditedChange): Promise<void> => {
  const actor = change.actor ?? principalActor(request.principal) ?? UNKNOWN_ACTOR;
  request.noteActor?.(actor);
  const now = Date.now();
  const entry: AuditEntry = {
    at: new Date(now).toISOString(),
    actor,
    action: change.action,
    target: change.target,
    sourceIp: request.event.requestContext?.identity?.sourceIp ?? null,
    requestId: request.requestId,
  };
  try {
    await putAuditRecord(entry, auditExpiry(now));
  } catch (error) {
    log.error('audit record not written', { audit: entry, error: String(error) });
  }
};
