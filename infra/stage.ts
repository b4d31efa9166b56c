import type { App } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { contextFlag } from './context-flag.js';
import { ModelGatewayStack } from './gateway-stack.js';

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

/** A stage becomes part of a stack name and a secret path: lower-case letters, digits and hyphens. */
const stagePattern = /^[a-z][a-z0-9-]{0,38}[a-z0-9]$|^[a-z]$/;

/** The stack name of a stage: `ModelGateway-prod`, `ModelGateway-ci-1234`. */
export const stackNameForStage = (stage: string): string => `ModelGateway-${stage}`;

/** The stage settings from the app's context (`-c stage=…`, `-c ephemeral=…`). */
export const stageFromContext = (node: Node): StageSettings => {
  const stage = String(node.tryGetContext('stage') ?? defaultStage);
  if (!stagePattern.test(stage)) {
    throw new Error(`-c stage='${stage}': use 1 to 40 lower-case letters, digits and hyphens, starting with a letter.`);
  }
  const ephemeral = contextFlag(node, 'ephemeral') ?? stage.startsWith(ciStagePrefix);
  return { stage, stackName: stackNameForStage(stage), ephemeral };
};

/** Adds the gateway stack of the context's stage to an app: what `cdk synth` and `cdk deploy` build. */
export const addStageStack = (app: App): ModelGatewayStack => {
  const stage = stageFromContext(app.node);
  return new ModelGatewayStack(app, stage.stackName, {
    description: `model-gateway ${stage.stage}: OpenAI-compatible model gateway (API Gateway, Lambda, DynamoDB)`,
    ephemeral: stage.ephemeral,
  });
};
