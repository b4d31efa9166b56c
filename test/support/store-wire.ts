import { Readable } from 'node:stream';
import type { HttpRequest, HttpResponse } from '@smithy/types';
import { storeRequestHandler } from '../../functions/shared/store/connection.js';

/**
 * The store's wire, for tests: every DynamoDB request the gateway sends (`store/operations.ts`)
 * passes the one request handler of its store connection. A listener sees each request as its operation and JSON input, and may hold it
 * (return a promise) or answer it in the store's place (return an answer: a throttling error, say),
 * so that what the gateway does with a store answer is tested through its real parsing.
 */

export type StoreInput = Record<string, unknown>;

/** An answer in the store's place: an HTTP status and a JSON body. */
export interface StoreAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Sees one request: `command` as the low-level client names it (`PutItemCommand`), `input` as sent. */
export type StoreListener = (command: string, input: StoreInput) => void | StoreAnswer | Promise<void | StoreAnswer>;

interface Handler {
  handle(request: HttpRequest, options?: unknown): Promise<{ response: HttpResponse }>;
}

const listenersOf = new WeakMap<Handler, Set<StoreListener>>();

const answerWith = ({ status, body }: StoreAnswer): { response: HttpResponse } => {
  const text = JSON.stringify(body);
  return {
    response: {
      statusCode: status,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(text)) },
      body: Readable.from([Buffer.from(text)]),
    } as HttpResponse,
  };
};

/** The listeners of the store connection's handler, installing the dispatch on first use. */
const listenersOfStore = (): Set<StoreListener> => {
  const handler = storeRequestHandler() as Handler;
  const known = listenersOf.get(handler);
  if (known) return known;
  const all = new Set<StoreListener>();
  listenersOf.set(handler, all);
  const send = handler.handle.bind(handler);
  handler.handle = async (request, options) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    if (target && all.size > 0) {
      const command = `${target.slice(target.indexOf('.') + 1)}Command`;
      const body = request.body as string | Uint8Array | undefined;
      const text =
        typeof body === 'string'
          ? body
          : body
            ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
            : '{}';
      const input = JSON.parse(text) as StoreInput;
      for (const listener of [...all]) {
        const answer = await listener(command, input);
        if (answer) return answerWith(answer);
      }
    }
    return send(request, options);
  };
  return all;
};

/** Adds a listener to the store's wire; returns its removal. */
export const onStoreRequests = (listener: StoreListener): (() => void) => {
  const listeners = listenersOfStore();
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
};
