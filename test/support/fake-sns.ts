import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server speaking the part of SNS's query protocol the gateway uses (POST / with a
 * form-encoded `Action=Publish`, answered in XML), keeping each message it was given. A topic it
 * was not told about is answered `NotFound`, as SNS answers. Point the SDK at `endpoint` through
 * `SNS_ENDPOINT`.
 */

export interface PublishedMessage {
  readonly topicArn: string;
  readonly subject: string | undefined;
  readonly message: string;
}

export interface FakeSns {
  readonly endpoint: string;
  /** Every message published so far, oldest first. */
  readonly published: readonly PublishedMessage[];
  /** Resolves with the first message, published already or still to come, that `matches`. */
  whenPublished(matches: (message: PublishedMessage) => boolean): Promise<PublishedMessage>;
  close(): Promise<void>;
}

const NAMESPACE = 'http://sns.amazonaws.com/doc/2010-03-31/';

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);

const readForm = async (request: IncomingMessage): Promise<URLSearchParams> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
};

const reply = (response: ServerResponse, status: number, xml: string) => {
  response.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  response.end(`<?xml version="1.0"?>\n${xml}`);
};

const fault = (response: ServerResponse, status: number, code: string, message: string) =>
  reply(
    response,
    status,
    `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code>` +
      `<Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );

/** A fake SNS that holds the topics given. */
export const startFakeSns = async (topicArns: readonly string[]): Promise<FakeSns> => {
  const topics = new Set(topicArns);
  const published: PublishedMessage[] = [];
  const waiting = new Set<(message: PublishedMessage) => void>();

  const server = createServer((request, response) => {
    void (async () => {
      const form = await readForm(request);
      if (request.method !== 'POST' || form.get('Action') !== 'Publish')
        return fault(response, 400, 'InvalidAction', `The action ${form.get('Action') ?? ''} is not valid.`);
      const topicArn = form.get('TopicArn') ?? '';
      const message = form.get('Message');
      if (!topics.has(topicArn)) return fault(response, 404, 'NotFound', 'Topic does not exist');
      if (!message) return fault(response, 400, 'InvalidParameter', 'Invalid parameter: Empty message');
      const entry = { topicArn, subject: form.get('Subject') ?? undefined, message };
      published.push(entry);
      for (const notify of [...waiting]) notify(entry);
      reply(
        response,
        200,
        `<PublishResponse xmlns="${NAMESPACE}"><PublishResult><MessageId>${randomUUID()}</MessageId>` +
          `</PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
      );
    })().catch((error: unknown) => fault(response, 500, 'InternalError', (error as Error).message));
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    published,
    whenPublished: (matches) =>
      new Promise((resolve) => {
        const earlier = published.find(matches);
        if (earlier) return resolve(earlier);
        const notify = (message: PublishedMessage) => {
          if (!matches(message)) return;
          waiting.delete(notify);
          resolve(message);
        };
        waiting.add(notify);
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
