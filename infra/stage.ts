import { type App, Tags } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { ModelGatewayStack } from './gateway-stack.js';
import { stackSetting, stackSettingGiven } from './stack-settings.js';

/**
 * Which stage a `cdk` command works on: `-c stage=<name>` (default `prod`). The stack name comes from
 * it and every other name from the stack (tables, functions and log groups get generated names; the
 * upstream key secrets live under `model-gateway/<stack name>/channels`), so stages sit side by side
 * in one account and region. A stage named `ci-…`, or one deployed with `-c ephemeral=true`, is
 * ephemeral: `cdk destroy` removes everything it made, its data included.
 */
export interface StageSettings {
  readonly stage: string;
  readonly stackName: string;
  readonly ephemeral: boolean;
}

export const defaultStage = 'prod';

/** Stage names that CI creates per run, and that the scheduled clean-up may delete. */
export const ciStagePrefix = 'ci-';

/**
 * The tag every resource of a stage carries (`model-gateway:stage` = `ci-1234`): the CI clean-up may
 * delete only user pools whose tag names a CI stage, since a pool's ARN carries no name.
 */
export const stageTagKey = 'model-gateway:stage';

/** The stack name of a stage: `ModelGateway-prod`, `ModelGateway-ci-1234`. */
export const stackNameForStage = (stage: string): string => `ModelGateway-${stage}`;

/** The stage settings from the app's context (`-c stage=…`, `-c ephemeral=…`). */
export const stageFromContext = (node: Node): StageSettings => {
  const stage = stackSetting(node, 'stage');
  const ephemeral = stackSetting(node, 'ephemeral') ?? stage.startsWith(ciStagePrefix);
  return { stage, stackName: stackNameForStage(stage), ephemeral };
};

/**
 * What a command without `-c stage=` is told: it works on the prod stage. `cdk destroy` takes the
 * same default, so a destroy meant for a dev stage would otherwise remove prod's functions and API.
 */
export const missingStageWarning = (node: Node): string | undefined =>
  !stackSettingGiven(node, 'stage')
    ? `model-gateway: no -c stage=<name> given, so this command works on the '${defaultStage}' stage (${stackNameForStage(defaultStage)}). Pass -c stage=<name> to work on another.`
    : undefined;

/** Adds the gateway stack of the context's stage to an app: what `cdk synth` and `cdk deploy` build. */
export const addStageStack = (app: App): ModelGatewayStack => {
  const stage = stageFromContext(app.node);
  const stack = new ModelGatewayStack(app, stage.stackName, {
    description: `model-gateway ${stage.stage}: OpenAI-compatible model gateway (API Gateway, Lambda, DynamoDB)`,
    stage: stage.stage,
    ephemeral: stage.ephemeral,
  });
  Tags.of(stack).add(stageTagKey, stage.stage);
  return stack;
};
