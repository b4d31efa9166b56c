import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { ModelGatewayStack, type ModelGatewayStackProps } from '../../infra/gateway-stack.js';
import { cdkOutdir } from '../support/cdk-outdir.js';

/** The feature flags `cdk synth` runs with, so the tests see the template that is deployed. */
const cdkContext = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export interface SynthesizeOptions {
  /** Run esbuild for every function, as `cdk synth` does; off, the assets are placeholders. */
  readonly bundle?: boolean;
  /** Stack context, as `cdk synth -c name=value` gives it. */
  readonly context?: Record<string, unknown>;
}

/** A fresh app with the gateway stack, environment-agnostic like `infra/app.ts`. */
export const synthesizeGatewayStack = (
  props: ModelGatewayStackProps = {},
  options: SynthesizeOptions = {},
): ModelGatewayStack => {
  const base = options.bundle ? cdkContext : { ...cdkContext, 'aws:cdk:bundling-stacks': [] };
  const context = { ...base, ...options.context };
  const app = new App({ outdir: cdkOutdir(), context });
  return new ModelGatewayStack(app, 'ModelGateway', props);
};
