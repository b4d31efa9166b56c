import { readFileSync } from 'node:fs';
import { App, type PolicyViolation, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addFixturesStack } from '../../infra/fixtures/fixtures-stage.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { addStageStack } from '../../infra/stage.js';
import { cdkOutdir } from '../support/cdk-outdir.js';

/** The feature flags `cdk synth` runs with, so the tests see the template that is deployed. */
const cdkContext = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export type TemplateResource = {
  readonly Type: string;
  readonly Properties: Record<string, any>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
};
export type Resources = Record<string, TemplateResource>;

export interface SynthesizedStage {
  readonly stack: ModelGatewayStack;
  readonly resources: Resources;
  readonly template: Template;
  /** The CI fixtures stack, for `ci-*` stages. */
  readonly fixtures?: { readonly stack: Stack; readonly resources: Resources };
  /** cdk-nag AwsSolutions findings nobody acknowledged, as `cdk synth` would report them. */
  readonly nagFindings: readonly string[];
}

const describeViolations = (violations: readonly PolicyViolation[]) =>
  violations.map(
    (violation) =>
      `${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
  );

/** The app `cdk synth -c …` builds (infra/app.ts), esbuild left out, with cdk-nag's findings. */
export const synthesizeStage = (context: Record<string, string> = {}): SynthesizedStage => {
  const app = new App({ outdir: cdkOutdir(), context: { ...cdkContext, ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = addStageStack(app);
  const fixturesStack = addFixturesStack(app);
  const template = Template.fromStack(stack);
  const nag = new AwsSolutionsChecks();
  const nagFindings = [stack, ...(fixturesStack ? [fixturesStack] : [])].flatMap((scope) =>
    describeViolations(nag.validateScope(scope).violations),
  );
  return {
    stack,
    template,
    resources: template.toJSON().Resources as Resources,
    ...(fixturesStack
      ? {
          fixtures: {
            stack: fixturesStack,
            resources: Template.fromStack(fixturesStack).toJSON().Resources as Resources,
          },
        }
      : {}),
    nagFindings,
  };
};

export const ofType = (resources: Resources, ...types: string[]): TemplateResource[] =>
  Object.values(resources).filter((resource) => types.includes(resource.Type));

/**
 * Everything that would outlive `cdk destroy`, or stop it: a Retain or Snapshot deletion or
 * replacement policy, and any deletion or termination protection switched on, however the resource
 * type spells it (`DeletionProtection: ACTIVE`, `DeletionProtectionEnabled: true`, …).
 */
export const keptOnDestroy = (resources: Resources): string[] => {
  const found: string[] = [];
  const protectionOn = (value: unknown) =>
    value === true || (typeof value === 'string' && /^(true|active|enabled)$/i.test(value));
  const walk = (id: string, value: unknown, path: string) => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(id, item, `${path}[${index}]`));
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (/(deletion|termination)protection/i.test(key) && protectionOn(item)) found.push(`${id} ${path}.${key}`);
        walk(id, item, `${path}.${key}`);
      }
    }
  };
  for (const [id, resource] of Object.entries(resources)) {
    for (const policy of ['DeletionPolicy', 'UpdateReplacePolicy'] as const) {
      const value = resource[policy];
      if (value !== undefined && value !== 'Delete') found.push(`${id} ${policy}: ${value}`);
    }
    walk(id, resource.Properties ?? {}, 'Properties');
  }
  return found;
};
