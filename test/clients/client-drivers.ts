import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How each real client is driven once, non-interactively, against the gateway: a command line, the
 * environment and settings files it reads, and the text its answer must hold. Each runs in a home
 * folder of its own, so no setting of the machine's user leaks in.
 */

export interface ClientRun {
  readonly client: string;
  readonly model: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
}

export interface ClientContext {
  /** The folder the clients are installed in (with node_modules/). */
  readonly clientsDir: string;
  /** The gateway's root address. */
  readonly gateway: string;
  readonly key: string;
  /** A fresh folder for this run's home and work tree. */
  readonly home: string;
  /** The Node binary that runs JavaScript clients. */
  readonly node: string;
}

const bin = (context: ClientContext, name: string) => join(context.clientsDir, 'node_modules', '.bin', name);

const baseEnv = (context: ClientContext): Record<string, string> => ({
  PATH: `${join(context.node, '..')}:${process.env.PATH ?? ''}`,
  HOME: context.home,
  USERPROFILE: context.home,
  NO_COLOR: '1',
  CI: '1',
});

const workTree = (context: ClientContext): string => {
  const cwd = join(context.home, 'project');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'hello.txt'), 'hello\n');
  return cwd;
};

export const codexRun = (context: ClientContext, model: string): ClientRun => {
  mkdirSync(join(context.home, '.codex'), { recursive: true });
  writeFileSync(
    join(context.home, '.codex', 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "gateway"',
      '[model_providers.gateway]',
      'name = "model-gateway"',
      `base_url = "${context.gateway}/v1"`,
      'env_key = "GATEWAY_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  return {
    client: 'codex',
    model,
    command: bin(context, 'codex'),
    args: ['exec', '--skip-git-repo-check', '--sandbox', 'read-only', 'Say hello.'],
    env: { ...baseEnv(context), GATEWAY_KEY: context.key, CODEX_HOME: join(context.home, '.codex') },
    cwd: workTree(context),
  };
};

export const geminiCliRun = (context: ClientContext, model: string): ClientRun => {
  mkdirSync(join(context.home, '.gemini'), { recursive: true });
  writeFileSync(
    join(context.home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      model: { name: model },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  );
  return {
    client: 'gemini-cli',
    model,
    command: bin(context, 'gemini'),
    args: ['-m', model, '-p', 'Say hello.', '--approval-mode', 'yolo'],
    env: {
      ...baseEnv(context),
      GOOGLE_GEMINI_BASE_URL: context.gateway,
      GEMINI_API_KEY: context.key,
      // Headless runs refuse an untrusted folder; this throwaway one is trusted.
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    },
    cwd: workTree(context),
  };
};

export const claudeCodeRun = (context: ClientContext, model: string): ClientRun => ({
  client: 'claude-code',
  model,
  command: bin(context, 'claude'),
  args: ['-p', 'Say hello.', '--model', model],
  env: {
    ...baseEnv(context),
    ANTHROPIC_BASE_URL: context.gateway,
    ANTHROPIC_AUTH_TOKEN: context.key,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  },
  cwd: workTree(context),
});

/** A framework script (test/clients/frameworks/<name>.mjs, copied beside the installed packages). */
export const frameworkRun = (context: ClientContext, framework: string, model: string): ClientRun => ({
  client: framework,
  model,
  command: context.node,
  args: [join(context.clientsDir, `${framework}.mjs`)],
  env: { ...baseEnv(context), GATEWAY_URL: context.gateway, GATEWAY_KEY: context.key, MODEL: model },
  cwd: context.clientsDir,
});

export interface RunResult {
  readonly code: number | null;
  readonly output: string;
}

/** Runs one client to its end (or kills it after `timeoutMs`), with its output. */
export const runClient = (run: ClientRun, timeoutMs: number): Promise<RunResult> =>
  new Promise((resolve) => {
    const child = spawn(run.command, run.args, { cwd: run.cwd, env: run.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}\n${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
