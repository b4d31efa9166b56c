import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addFixturesStack } from './fixtures/fixtures-stage.js';
import { addStageStack } from './stage.js';

const app = new App();
// One stack per stage (`-c stage=dev`, `prod` by default), named after it. Environment-agnostic:
// deploys to the account and region of the caller's credentials, and synthesises offline (no
// context lookups).
addStageStack(app);
// CI stages also get the fake upstream the integration suite scripts, reachable from Lambda.
addFixturesStack(app);
// cdk-nag v3 runs as a policy validation plugin: any unacknowledged finding fails synthesis.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
