import type { Readable } from 'node:stream';

/** What every handler returns: an API Gateway proxy result, with a stream body on streaming routes. */
export interface GatewayResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string | Readable;
  isBase64Encoded?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export const json = (statusCode: number, payload: unknown, headers: Record<string, string> = {}): GatewayResponse => ({
  statusCode,
  headers: { ...JSON_HEADERS, ...headers },
  body: JSON.stringify(payload),
});
