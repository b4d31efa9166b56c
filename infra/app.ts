import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addFixturesStack } from './fixtures/fixtures-stage.js';
import { addStageStack, missingStageWarning } from './stage.js';

const app = new App();
// The CDK tells the app nothing of the command: every command without a stage says which it works
// on, so that `cdk destroy` meant for another stage does not quietly target prod. (Standard error:
// the CLI shows it, and it never mixes with a template on standard output.)
const warning = missingStageWarning(app.node);
if (warning) process.stderr.write(`\nWARNING ${warning}\n\n`);
// One stack per stage (`-c stage=dev`, `prod` by default), named after it. Environment-agnostic:
// deploys to the account and region of the caller's credentials, and synthesises offline (no
// context lookups).
addStageStack(app);
// CI stages also get the fake upstream the integration suite scripts, reachable from Lambda.
addFixturesStack(app);
// cdk-nag v3 runs as a policy validation plugin: any unacknowledged finding fails synthesis.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
