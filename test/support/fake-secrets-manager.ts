import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server speaking the part of Secrets Manager's JSON 1.1 protocol the gateway uses
 * (POST /, `x-amz-target: secretsmanager.<Operation>`), with its state rules: a name is taken until
 * the secret is gone, a secret scheduled for deletion refuses everything but RestoreSecret and a
 * forced DeleteSecret; the name filter of ListSecrets is a case-insensitive prefix match. Point the
 * SDK at `endpoint` through `SECRETS_MANAGER_ENDPOINT`.
 */

export type SecretsOperation =
  'CreateSecret' | 'PutSecretValue' | 'GetSecretValue' | 'DeleteSecret' | 'RestoreSecret' | 'ListSecrets';

export interface FakeSecret {
  readonly name: string;
  readonly arn: string;
  readonly value: string;
  readonly versions: number;
  readonly tags: readonly { Key: string; Value: string }[];
  /** Set while the secret is scheduled for deletion. */
  readonly deletion: { readonly recoveryWindowInDays: number } | undefined;
}

/** An error to answer the next call of one operation with, as Secrets Manager would. */
export interface SecretsFault {
  readonly type: string;
  readonly status?: number;
  readonly message?: string;
}

export interface FakeSecretsManager {
  readonly endpoint: string;
  /** The secret by name or ARN, as the fake holds it now. */
  secret(id: string): FakeSecret | undefined;
  /** Every secret the fake holds, scheduled deletions included. */
  secrets(): FakeSecret[];
  /** How many times an operation was called. */
  calls(operation: SecretsOperation): number;
  /** Answers the next call of `operation` with this error. */
  inject(operation: SecretsOperation, fault: SecretsFault): void;
  close(): Promise<void>;
}

class SecretsManagerFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const notFound = () =>
  new SecretsManagerFault('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
const markedDeleted = () =>
  new SecretsManagerFault(
    'InvalidRequestException',
    "You can't perform this operation on the secret because it was marked for deletion.",
  );

const ARN_PREFIX = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:';
const randomSuffix = () => Math.random().toString(36).slice(2, 8).padEnd(6, '0');
const epochSeconds = () => Date.now() / 1000;
const LIST_PAGE_SIZE = 3;

const readBody = async (request: IncomingMessage): Promise<Record<string, any>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, any>) : {};
};

const answer = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
  response.end(JSON.stringify(body));
};

export const startFakeSecretsManager = async (): Promise<FakeSecretsManager> => {
  const byName = new Map<string, FakeSecret>();
  const counts = new Map<SecretsOperation, number>();
  const faults = new Map<SecretsOperation, SecretsFault[]>();
  const sockets = new Set<Socket>();

  const find = (id: unknown): FakeSecret | undefined => {
    if (typeof id !== 'string') return undefined;
    if (!id.startsWith('arn:')) return byName.get(id);
    return [...byName.values()].find((secret) => secret.arn === id);
  };
  const live = (id: unknown): FakeSecret => {
    const secret = find(id);
    if (!secret) throw notFound();
    if (secret.deletion) throw markedDeleted();
    return secret;
  };
  const save = (secret: FakeSecret) => {
    byName.set(secret.name, secret);
    return secret;
  };

  const operations: Record<SecretsOperation, (input: Record<string, any>) => unknown> = {
    CreateSecret: ({ Name, SecretString, Tags }) => {
      if (typeof Name !== 'string' || typeof SecretString !== 'string') {
        throw new SecretsManagerFault('InvalidParameterException', 'Name and SecretString are required.');
      }
      const existing = byName.get(Name);
      if (existing?.deletion) {
        throw new SecretsManagerFault(
          'InvalidRequestException',
          "You can't create this secret because a secret with this name is already scheduled for deletion.",
        );
      }
      if (existing)
        throw new SecretsManagerFault(
          'ResourceExistsException',
          `The operation failed because the secret ${Name} already exists.`,
        );
      const secret = save({
        name: Name,
        arn: `${ARN_PREFIX}${Name}-${randomSuffix()}`,
        value: SecretString,
        versions: 1,
        tags: Tags ?? [],
        deletion: undefined,
      });
      return { ARN: secret.arn, Name: secret.name, VersionId: randomUUID() };
    },
    PutSecretValue: ({ SecretId, SecretString }) => {
      const current = live(SecretId);
      const secret = save({ ...current, value: SecretString, versions: current.versions + 1 });
      return { ARN: secret.arn, Name: secret.name, VersionId: randomUUID(), VersionStages: ['AWSCURRENT'] };
    },
    GetSecretValue: ({ SecretId }) => {
      const secret = live(SecretId);
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: randomUUID(),
        SecretString: secret.value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: epochSeconds(),
      };
    },
    DeleteSecret: ({ SecretId, RecoveryWindowInDays, ForceDeleteWithoutRecovery }) => {
      // Only a forced deletion may reach a secret already scheduled for deletion.
      const secret = ForceDeleteWithoutRecovery ? find(SecretId) : live(SecretId);
      if (!secret) throw notFound();
      if (ForceDeleteWithoutRecovery) byName.delete(secret.name);
      else save({ ...secret, deletion: { recoveryWindowInDays: RecoveryWindowInDays ?? 30 } });
      return { ARN: secret.arn, Name: secret.name, DeletionDate: epochSeconds() };
    },
    // Pages of LIST_PAGE_SIZE: Secrets Manager may return fewer than asked for, with a NextToken.
    ListSecrets: ({ Filters, IncludePlannedDeletion, NextToken }) => {
      const namePrefixes = ((Filters ?? []) as { Key: string; Values: string[] }[])
        .filter((filter) => filter.Key === 'name')
        .flatMap((filter) => filter.Values.map((value) => value.toLowerCase()));
      const matching = [...byName.values()]
        .filter((secret) => IncludePlannedDeletion || !secret.deletion)
        .filter(
          (secret) =>
            namePrefixes.length === 0 || namePrefixes.some((prefix) => secret.name.toLowerCase().startsWith(prefix)),
        );
      const start = Number(NextToken ?? 0);
      const page = matching.slice(start, start + LIST_PAGE_SIZE);
      return {
        SecretList: page.map((secret) => ({
          ARN: secret.arn,
          Name: secret.name,
          ...(secret.deletion ? { DeletedDate: epochSeconds() } : {}),
        })),
        ...(start + LIST_PAGE_SIZE < matching.length ? { NextToken: String(start + LIST_PAGE_SIZE) } : {}),
      };
    },
    RestoreSecret: ({ SecretId }) => {
      const secret = find(SecretId);
      if (!secret) throw notFound();
      save({ ...secret, deletion: undefined });
      return { ARN: secret.arn, Name: secret.name };
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.replace(/^secretsmanager\./, '') as SecretsOperation;
    const input = await readBody(request);
    if (request.method !== 'POST' || !target.startsWith('secretsmanager.') || !(operation in operations)) {
      answer(response, 400, { __type: 'UnknownOperationException', message: `Unknown operation ${target}` });
      return;
    }
    if (request.headers['content-type'] !== 'application/x-amz-json-1.1') {
      answer(response, 400, { __type: 'SerializationException', message: 'expected application/x-amz-json-1.1' });
      return;
    }
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
    const fault = faults.get(operation)?.shift();
    try {
      if (fault) throw new SecretsManagerFault(fault.type, fault.message ?? `injected ${fault.type}`, fault.status);
      answer(response, 200, operations[operation](input));
    } catch (error) {
      if (!(error instanceof SecretsManagerFault)) throw error;
      answer(response, error.status, { __type: error.type, message: error.message });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) =>
      answer(response, 500, { __type: 'InternalServiceError', message: String(error) }),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    secret: find,
    secrets: () => [...byName.values()],
    calls: (operation) => counts.get(operation) ?? 0,
    inject: (operation, fault) => faults.set(operation, [...(faults.get(operation) ?? []), fault]),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
