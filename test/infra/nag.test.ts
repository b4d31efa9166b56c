import { type App, type PolicyViolation, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { synthesizeGatewayStack } from './synthesize.js';

interface Acknowledgement {
  readonly id: string;
  readonly reason: string;
  readonly path: string;
}

/** Every acknowledged rule in a construct tree, with where it was acknowledged. */
const acknowledgementsIn = (root: IConstruct): Acknowledgement[] =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, unknown>).map(([id, value]) => ({
          id: id.replace(/^annotation::/i, ''),
          reason: typeof value === 'string' ? value : JSON.stringify(value),
          path: construct.node.path,
        })),
      ),
  );

const describeViolations = (violations: readonly PolicyViolation[]) =>
  violations.map(
    (violation) =>
      `${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
  );

describe('cdk-nag AwsSolutions checks', () => {
  const stack = synthesizeGatewayStack();

  it('finds no unacknowledged error or warning', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(describeViolations(report.violations)).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('gives every acknowledged rule a real reason', () => {
    const acknowledgements = acknowledgementsIn(stack).filter((entry) => entry.id.startsWith('AwsSolutions-'));
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const acknowledgement of acknowledgements) {
      expect(acknowledgement.reason.length).toBeGreaterThan(60);
    }
  });

  it('acknowledges no rule for the whole stack, only on the constructs it concerns', () => {
    const stackWide = acknowledgementsIn(stack).filter((entry) => entry.path === stack.node.path);
    expect(stackWide).toEqual([]);
  });
});

describe('cdk-nag as synthesis runs it', () => {
  it('lets an app with the AwsSolutions plugin synthesize, as `cdk synth` does', () => {
    const stack = synthesizeGatewayStack();
    const app = stack.node.root as App;
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});
