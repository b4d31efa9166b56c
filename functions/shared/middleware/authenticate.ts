import { assertIpAllowed } from '../auth/ip-allow-list.js';
import { looksLikeApiKey } from '../auth/api-key.js';
import { keyUseWrite } from '../auth/key-use.js';
import { cachedPrincipal, resolvePrincipal, type Principal } from '../auth/principal.js';
import { forbidden, invalidApiKey } from '../errors.js';
import type { KeyRole } from '../store/keys.js';
import type { GatewayMiddyRequest, GatewayState } from './gateway-context.js';

/**
 * Where a key may travel. `bearer` is accepted everywhere; the vendor-style carriers only where the
 * vendor's SDKs send them (DESIGN §3.3).
 */
export type KeyCarrier = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'query-key';

export interface AuthenticateOptions {
  readonly carriers?: readonly KeyCarrier[];
  readonly role?: KeyRole;
  /**
   * Resolves a bearer value that is not an API key (a console session) to a principal. Passed by the
   * endpoints that accept one, so the other bundles do not carry the session code.
   */
  readonly sessionPrincipal?: (token: string) => Promise<Principal>;
}

const readCarrier = (carrier: KeyCarrier, state: GatewayState): string | undefined => {
  switch (carrier) {
    case 'bearer': {
      const header = state.headers.authorization;
      if (!header) return undefined;
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      return match ? match[1]!.trim() : undefined;
    }
    case 'x-api-key':
      return state.headers['x-api-key']?.trim();
    case 'x-goog-api-key':
      return state.headers['x-goog-api-key']?.trim();
    case 'query-key':
      return state.query.key?.trim();
    default: {
      const unreachable: never = carrier;
      throw new Error(`unknown key carrier ${String(unreachable)}`);
    }
  }
};

/** Finds the key on the first carrier that has one, and resolves it to a principal (401/403 otherwise). */
export const authenticate = (options: AuthenticateOptions = {}) => {
  const carriers = options.carriers ?? ['bearer'];
  const role = options.role ?? 'user';

  const admit = (principal: Principal, request: GatewayMiddyRequest): void => {
    assertIpAllowed(principal, request.event.requestContext?.identity?.sourceIp);
    if (role === 'admin' && principal.role !== 'admin') {
      throw forbidden('This key may not use the admin API: it needs the admin role.');
    }
    request.context.gateway.principal = principal;
    // After the response, at most once a minute per key: when the key was last used (key-use.ts).
    const noteUse = keyUseWrite(principal);
    if (noteUse) request.context.gateway.pending.push(noteUse);
  };

  /** Synchronous for a cached key: middy then goes on to the next middleware without awaiting. */
  const authenticateBefore = (request: GatewayMiddyRequest): Promise<void> | undefined => {
    const state = request.context.gateway;
    let key: string | undefined;
    for (const carrier of carriers) {
      key = readCarrier(carrier, state);
      if (key) break;
    }
    if (!key) throw invalidApiKey();
    if (options.sessionPrincipal && !looksLikeApiKey(key))
      return options.sessionPrincipal(key).then((principal) => admit(principal, request));
    const cached = cachedPrincipal(key);
    if (cached) {
      admit(cached, request);
      return undefined;
    }
    return resolvePrincipal(key).then((principal) => admit(principal, request));
  };
  return { before: authenticateBefore };
};
