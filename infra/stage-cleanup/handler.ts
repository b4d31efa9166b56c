import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent, CloudFormationCustomResourceResponse } from 'aws-lambda';
import { deleteSecretsUnder } from './delete-stage-secrets.js';

/**
 * The custom resource of an ephemeral stage: on stack deletion it force-deletes the stage's upstream
 * key secrets (see `infra/constructs/ephemeral-stage.ts`). Creation and updates do nothing. The answer
 * goes to CloudFormation's pre-signed URL; a failed clean-up fails the deletion, so that secrets are
 * never left behind silently (the scheduled clean-up of CI stages tries again).
 */

interface CleanupProperties {
  readonly SecretPrefix: string;
}

type Answer = { readonly Status: 'SUCCESS' } | { readonly Status: 'FAILED'; readonly Reason: string };

const respond = async (event: CloudFormationCustomResourceEvent, answer: Answer) => {
  const body: CloudFormationCustomResourceResponse = {
    ...answer,
    PhysicalResourceId:
      'PhysicalResourceId' in event ? event.PhysicalResourceId : `stage-secrets:${event.LogicalResourceId}`,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
  // The pre-signed URL is signed without a content type: send none.
  const response = await fetch(event.ResponseURL, {
    method: 'PUT',
    headers: { 'content-type': '' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`CloudFormation refused the answer: HTTP ${response.status}`);
};

export const handler = async (event: CloudFormationCustomResourceEvent): Promise<void> => {
  if (event.RequestType !== 'Delete') {
    await respond(event, { Status: 'SUCCESS' });
    return;
  }
  const properties = event.ResourceProperties as unknown as CleanupProperties;
  try {
    // Made per invocation: the resource is deleted once, and the client is cheap next to that.
    const deleted = await deleteSecretsUnder(new SecretsManagerClient({}), properties.SecretPrefix);
    console.log(
      JSON.stringify({ message: 'deleted the stage secrets', prefix: properties.SecretPrefix, count: deleted.length }),
    );
    await respond(event, { Status: 'SUCCESS' });
  } catch (error) {
    const reason = `Deleting the secrets under ${properties.SecretPrefix} failed: ${error instanceof Error ? error.name : 'Error'}`;
    console.log(JSON.stringify({ message: reason }));
    await respond(event, { Status: 'FAILED', Reason: reason });
  }
};
