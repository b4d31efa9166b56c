import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ModelGatewayStack } from './gateway-stack.js';

const app = new App();
// Environment-agnostic: deploys to the account and region of the caller's credentials, and
// synthesises offline (no context lookups).
new ModelGatewayStack(app, 'ModelGateway', {
  description: 'model-gateway: OpenAI-compatible model gateway (API Gateway, Lambda, DynamoDB)',
});
// cdk-nag v3 runs as a policy validation plugin: any unacknowledged finding fails synthesis.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
