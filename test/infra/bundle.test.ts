import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { App, CfnElement } from 'aws-cdk-lib';
import { functionGroups, routes } from '../../functions/shared/routes.js';
import { bundleGroup, type BundleResult } from '../../infra/build/bundle.js';
import { bundleSizeLimitBytes, requireBanner } from '../../infra/build/esbuild-options.js';
import { synthesizeGatewayStack } from './synthesize.js';

const run = promisify(execFile);

let outputDirectory: string;
let models: BundleResult;
let bundle: string;

beforeAll(async () => {
  outputDirectory = await mkdtemp(path.join(os.tmpdir(), 'gateway-bundle-'));
  models = await bundleGroup('models', outputDirectory);
  bundle = await readFile(models.outfile, 'utf8');
});

afterAll(async () => {
  await rm(outputDirectory, { recursive: true, force: true });
});

describe('the models function bundle', () => {
  it('fits the 250 KB budget, AWS SDK included', () => {
    expect(models.bytes).toBeLessThanOrEqual(bundleSizeLimitBytes);
    expect(models.withinBudget).toBe(true);
  });

  it('is an ESM module that defines require for CommonJS dependencies', () => {
    expect(path.basename(models.outfile)).toBe('index.mjs');
    expect(bundle.startsWith(requireBanner)).toBe(true);
  });

  it('carries the DynamoDB client instead of relying on the SDK in the runtime', () => {
    expect(bundle).not.toMatch(/from\s*["']@aws-sdk\//);
    expect(bundle).toContain('DynamoDB');
  });

  it('takes credentials from the Lambda environment instead of the full SDK provider chain', () => {
    expect(bundle).not.toContain('credential_process');
    expect(bundle).not.toContain('sso-oidc');
  });

  it('loads in Node and exports a handler function', async () => {
    const script = `const module = await import(${JSON.stringify(models.outfile)}); console.log(typeof module.handler);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', script], {
      env: { ...process.env, AWS_REGION: 'us-east-1' },
    });
    expect(stdout.trim()).toBe('function');
  });

  it('is byte for byte the bundle that cdk synth deploys', async () => {
    // Only the groups this bundle needs, so a group under construction elsewhere cannot break it.
    const groups = { models: functionGroups.models, fallback: functionGroups.fallback };
    const stack = synthesizeGatewayStack(
      { functionGroups: groups, routes: routes.filter((route) => route.group in groups) },
      { bundle: true },
    );
    const assembly = (stack.node.root as App).synth();
    const template = assembly.getStackByName(stack.stackName).template;
    const functionId = stack.getLogicalId(stack.functions.functionFor('models').node.defaultChild as CfnElement);
    const assetHash = (template.Resources[functionId].Properties.Code.S3Key as string).replace(/\.zip$/, '');
    const deployed = await readFile(path.join(assembly.directory, `asset.${assetHash}`, 'index.mjs'), 'utf8');
    expect(deployed === bundle).toBe(true);
  });
});
