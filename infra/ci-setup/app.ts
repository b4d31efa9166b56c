import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CiSetupStack } from './ci-setup-stack.js';

/**
 * The CI setup app, deployed once per account and region (docs/ci.md):
 *   npx cdk deploy --app 'npx tsx infra/ci-setup/app.ts' -c githubRepository=owner/name
 * Options: -c githubRef=refs/heads/main, -c existingOidcProvider=true, -c bootstrapQualifier=hnb659fds,
 * -c existingApiGatewayLogRole=true.
 */
const app = new App();
const repository = app.node.tryGetContext('githubRepository') as string | undefined;
if (!repository) throw new Error('Give the repository that may deploy: -c githubRepository=owner/name');
new CiSetupStack(app, 'ModelGatewayCiSetup', {
  description: 'model-gateway CI: GitHub OIDC deploy role for ephemeral ci-* stages',
  githubRepository: repository,
  githubRef: app.node.tryGetContext('githubRef') as string | undefined,
  existingOidcProvider: String(app.node.tryGetContext('existingOidcProvider') ?? 'false') === 'true',
  bootstrapQualifier: app.node.tryGetContext('bootstrapQualifier') as string | undefined,
  existingApiGatewayLogRole: String(app.node.tryGetContext('existingApiGatewayLogRole') ?? 'false') === 'true',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
