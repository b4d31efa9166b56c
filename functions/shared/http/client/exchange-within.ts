import { Exchange, type ExchangeRequest } from './exchange.js';
import type { ResponseHead } from './response-parser.js';
import type { ResponseBody } from './response-body.js';

export interface ExchangeResponse extends ResponseHead {
  readonly body: ResponseBody;
}

/**
 * One exchange that must be over within `timeoutMs`, from the request to the body's last byte, for
 * the small, quick answers of the store and the credentials endpoint: one timer for the whole call,
 * where a timer moved at every read would cost more than it tells. On time out the exchange fails
 * with `timeoutError()`, before its head (a rejection) or after it (the body's error).
 */
export const exchangeWithin = (
  request: ExchangeRequest,
  timeoutMs: number,
  timeoutError: () => Error,
): Promise<ExchangeResponse> =>
  new Promise((resolve, reject) => {
    const exchange = new Exchange(request, {
      head: ({ status, headers }, body) => {
        body.once('close', () => clearTimeout(timer));
        resolve({ status, headers, body });
      },
      fail: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
    const timer = setTimeout(() => exchange.fail(timeoutError()), timeoutMs);
  });
