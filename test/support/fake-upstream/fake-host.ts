import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeFault } from './fault-codec.js';
import { answerAsFake, type Fault } from './fake-upstream.js';
import type { FakeHostStore } from './fake-host-store.js';
import { parseWireSpecs, routesOfWires } from './fake-wires.js';

/**
 * The fake upstream as a service many tests share: each test opens a session, whose fake answers
 * under `/sessions/<id>/fake/…` (a channel's `baseUrl` points there), and drives it through a control
 * API guarded by a token (`authorization: Bearer <token>`):
 *
 *   POST   /control/sessions                 {"wires":[{"wire":"openai"}, …]}  → 201 {"id"}
 *   POST   /control/sessions/<id>/faults     {"faults":[…]}                    → 204
 *   DELETE /control/sessions/<id>/faults                                       → 204
 *   GET    /control/sessions/<id>/received                                     → 200 {"requests":[…]}
 *   GET    /control/sessions/<id>/aborted                                      → 200 {"count"}
 *   DELETE /control/sessions/<id>                                              → 204
 *
 * The same listener runs as its own process and inside the fixtures Lambda function.
 */
const SESSION_PATH = /^\/sessions\/([0-9a-f-]{36})\/fake(\/.*)$/;
const CONTROL_PATH = /^\/control\/sessions(?:\/([0-9a-f-]{36})(?:\/(faults|received|aborted))?)?$/;
const MAX_CONTROL_BODY = 1_000_000;

const answerJson = (response: ServerResponse, status: number, body?: unknown): void => {
  if (body === undefined) {
    response.writeHead(status);
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const refuse = (response: ServerResponse, status: number, message: string): void =>
  answerJson(response, status, { error: { message, type: 'fake_upstream_control' } });

const readControlBody = async (request: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CONTROL_BODY) throw new RangeError('control body too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

const tokenMatches = (header: string | undefined, token: string): boolean => {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

export const fakeHost = (store: FakeHostStore, token: string) => {
  if (token.length < 16) throw new Error('The fake upstream control token needs at least 16 characters.');

  const control = async (
    incoming: IncomingMessage,
    response: ServerResponse,
    session: string | undefined,
    part: string | undefined,
  ): Promise<void> => {
    const method = incoming.method ?? 'GET';
    if (!session) {
      if (method !== 'POST') return refuse(response, 405, 'POST /control/sessions opens a session');
      const wires = parseWireSpecs(((await readControlBody(incoming)) as { wires?: unknown } | null)?.wires);
      if (!wires) return refuse(response, 400, 'wires: a list of 1 to 8 known wire formats');
      const id = randomUUID();
      await store.createSession(id, wires);
      return answerJson(response, 201, { id });
    }
    if (!(await store.wiresOf(session))) return refuse(response, 404, 'no such session');
    if (part === undefined && method === 'DELETE') {
      await store.deleteSession(session);
      return answerJson(response, 204);
    }
    if (part === 'faults' && method === 'POST') {
      const raw = ((await readControlBody(incoming)) as { faults?: unknown } | null)?.faults;
      const faults = Array.isArray(raw) ? raw.map(decodeFault) : [];
      if (!Array.isArray(raw) || raw.length === 0 || faults.some((fault) => fault === undefined))
        return refuse(response, 400, 'faults: a list of faults the fake knows');
      await store.addFaults(session, faults as Fault[]);
      return answerJson(response, 204);
    }
    if (part === 'faults' && method === 'DELETE') {
      await store.clearFaults(session);
      return answerJson(response, 204);
    }
    if (part === 'received' && method === 'GET')
      return answerJson(response, 200, { requests: await store.received(session) });
    if (part === 'aborted' && method === 'GET')
      return answerJson(response, 200, { count: await store.abortedByClient(session) });
    return refuse(response, 405, `${method} is not served here`);
  };

  return async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      const path = new URL(incoming.url ?? '/', 'http://fake').pathname;
      const fake = SESSION_PATH.exec(path);
      if (fake) {
        const [, session, rest] = fake;
        const wires = await store.wiresOf(session!);
        if (!wires) return refuse(response, 404, 'no such session');
        // The session's fake sees the path its wire format defines, as a vendor's server would.
        incoming.url = rest! + (incoming.url!.includes('?') ? incoming.url!.slice(incoming.url!.indexOf('?')) : '');
        return await answerAsFake(routesOfWires(wires), store.stateOf(session!))(incoming, response);
      }
      if (path === '/health') return answerJson(response, 200, { status: 'ok' });
      const route = CONTROL_PATH.exec(path);
      if (!route) return refuse(response, 404, 'not found');
      if (!tokenMatches(incoming.headers.authorization, token)) return refuse(response, 401, 'control token required');
      return await control(incoming, response, route[1], route[2]);
    } catch (error) {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const badRequest = error instanceof SyntaxError || error instanceof RangeError;
      refuse(response, badRequest ? 400 : 500, badRequest ? 'body: JSON of at most 1 MB' : 'fake upstream failed');
    }
  };
};
