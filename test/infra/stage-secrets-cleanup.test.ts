import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateSecretCommand, DeleteSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { deleteSecretsUnder } from '../../infra/stage-cleanup/delete-stage-secrets.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../support/fake-secrets-manager.js';

/**
 * The clean-up of an ephemeral stage's upstream key secrets, against the Secrets Manager fake: every
 * secret under the stage's folder goes, scheduled deletions included, and nothing else does; the
 * custom resource handler answers CloudFormation on its pre-signed URL.
 */

const PREFIX = 'model-gateway/ModelGateway-ci-7/channels';
const credentials = { accessKeyId: 'AKIDCLEANUP', secretAccessKey: 'cleanup-secret' };

let secrets: FakeSecretsManager;
let client: SecretsManagerClient;

const create = (name: string) =>
  client.send(new CreateSecretCommand({ Name: name, SecretString: 'sk-upstream-cleanup-test-value' }));

beforeEach(async () => {
  secrets = await startFakeSecretsManager();
  client = new SecretsManagerClient({ endpoint: secrets.endpoint, region: 'us-east-1', credentials });
});

afterEach(async () => {
  client.destroy();
  await secrets.close();
});

it('force-deletes every secret under the stage folder, across pages and scheduled deletions, and nothing else', async () => {
  const ours = ['openai', 'anthropic', 'gemini', 'bedrock-proxy', 'spare', 'other'].map(
    (channel) => `${PREFIX}/${channel}`,
  );
  for (const name of ours) await create(name);
  await client.send(new DeleteSecretCommand({ SecretId: `${PREFIX}/spare`, RecoveryWindowInDays: 7 }));
  const neighbours = [
    'model-gateway/ModelGateway-ci-70/channels/openai',
    'model-gateway/ModelGateway-prod/channels/openai',
    'unrelated',
  ];
  for (const name of neighbours) await create(name);

  const deleted = await deleteSecretsUnder(client, PREFIX);

  expect(deleted.sort()).toEqual([...ours].sort());
  expect(
    secrets
      .secrets()
      .map((secret) => secret.name)
      .sort(),
  ).toEqual([...neighbours].sort());
  expect(secrets.calls('ListSecrets')).toBeGreaterThan(1);
});

it('succeeds on a stage that never stored a key', async () => {
  await expect(deleteSecretsUnder(client, PREFIX)).resolves.toEqual([]);
});

describe('the custom resource handler', () => {
  let cloudFormation: Server;
  let answers: Record<string, unknown>[];
  let responseUrl: string;
  const saved = { ...process.env };

  beforeEach(async () => {
    answers = [];
    cloudFormation = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        answers.push({ method: request.method, ...JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        response.end();
      });
    });
    await new Promise<void>((resolve) => cloudFormation.listen(0, '127.0.0.1', () => resolve()));
    responseUrl = `http://127.0.0.1:${(cloudFormation.address() as AddressInfo).port}/presigned`;
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
  });

  afterEach(async () => {
    process.env = { ...saved };
    await new Promise<void>((resolve) => cloudFormation.close(() => resolve()));
  });

  const event = (RequestType: 'Create' | 'Delete'): CloudFormationCustomResourceEvent =>
    ({
      RequestType,
      ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:cleanup',
      ResponseURL: responseUrl,
      StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/ModelGateway-ci-7/1',
      RequestId: `request-${RequestType}`,
      LogicalResourceId: 'EphemeralSecretsCleanup',
      ResourceType: 'Custom::StageSecretsCleanup',
      ResourceProperties: { ServiceToken: 'arn', SecretPrefix: PREFIX },
      ...(RequestType === 'Delete' ? { PhysicalResourceId: 'stage-secrets:EphemeralSecretsCleanup' } : {}),
    }) as CloudFormationCustomResourceEvent;

  it('deletes the secrets on stack deletion and reports success to CloudFormation', async () => {
    await create(`${PREFIX}/openai`);
    const { handler } = await import('../../infra/stage-cleanup/handler.js');

    await handler(event('Delete'));

    expect(secrets.secrets()).toEqual([]);
    expect(answers).toEqual([
      expect.objectContaining({
        method: 'PUT',
        Status: 'SUCCESS',
        RequestId: 'request-Delete',
        PhysicalResourceId: 'stage-secrets:EphemeralSecretsCleanup',
      }),
    ]);
  });

  it('touches no secret on creation', async () => {
    await create(`${PREFIX}/openai`);
    const { handler } = await import('../../infra/stage-cleanup/handler.js');

    await handler(event('Create'));

    expect(secrets.secrets()).toHaveLength(1);
    expect(answers).toEqual([expect.objectContaining({ Status: 'SUCCESS', RequestId: 'request-Create' })]);
  });

  it('fails the deletion, naming the error but no value, when Secrets Manager refuses', async () => {
    await create(`${PREFIX}/openai`);
    secrets.inject('ListSecrets', { type: 'AccessDeniedException', message: 'not allowed' });
    const { handler } = await import('../../infra/stage-cleanup/handler.js');

    await handler(event('Delete'));

    expect(answers).toEqual([
      expect.objectContaining({ Status: 'FAILED', Reason: expect.stringContaining('AccessDeniedException') }),
    ]);
    expect(JSON.stringify(answers)).not.toContain('sk-upstream');
  });
});
