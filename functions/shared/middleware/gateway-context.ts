import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { AuditActor } from '../store/audit-entry.js';
import type { Principal } from '../auth/principal.js';
import type { ErrorFormat } from '../http/error-response.js';
import type { RequestTrace } from '../observability/request-trace.js';
import type { FunctionDeadline } from './function-deadline.js';

/** What the shared middlewares learn about a request, for the next middleware and the handler. */
export interface GatewayState {
  requestId: string;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The parsed JSON body (then the validated one), `undefined` for a request without one. */
  body: unknown;
  principal?: Principal;
  /** Who made a change the audit trail recorded (`recordAudit`), for the request's log line. */
  actor?: AuditActor;
  errorFormat: ErrorFormat;
  startedAt: number;
  /** Where the request's time goes, and what its meter learned: for its headers and its log line. */
  trace: RequestTrace;
  /**
   * Work that must finish before the function returns: under way, or to start once the response has
   * gone out (a streaming function's; a buffered one's response goes out when the function returns).
   */
  pending: (Promise<unknown> | (() => Promise<unknown>))[];
  /** When the handler must wrap up, before Lambda stops the function; cleared once the response is out. */
  deadline?: FunctionDeadline;
}

export type GatewayContext = Context & { gateway: GatewayState };

/** The middy request as our middlewares see it. */
export interface GatewayMiddyRequest {
  event: APIGatewayProxyEvent;
  context: GatewayContext;
  response: unknown;
  error: unknown;
}
