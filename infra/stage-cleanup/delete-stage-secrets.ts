import { DeleteSecretCommand, ListSecretsCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Deletes every secret under a folder (`<prefix>/…`) at once, without a recovery window: the upstream
 * keys the admin function created at run time, which CloudFormation never knew about. Secrets already
 * scheduled for deletion are included, so no name and no charge is left behind. Returns the names.
 */
export const deleteSecretsUnder = async (client: SecretsManagerClient, prefix: string): Promise<string[]> => {
  const folder = `${prefix.replace(/\/+$/, '')}/`;
  const names: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(
      new ListSecretsCommand({
        // The name filter is a case-insensitive prefix match: the exact folder is checked below.
        Filters: [{ Key: 'name', Values: [folder] }],
        IncludePlannedDeletion: true,
        NextToken: nextToken,
      }),
    );
    for (const secret of page.SecretList ?? []) {
      if (secret.Name?.startsWith(folder) && secret.ARN) names.push(secret.Name);
    }
    nextToken = page.NextToken;
  } while (nextToken);

  for (const name of names) {
    try {
      await client.send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
    } catch (error) {
      // Gone meanwhile (another clean-up, a channel deleted at the same moment): nothing left to do.
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
  }
  return names;
};
