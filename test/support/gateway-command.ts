import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** `npm start` running as a child of the test, in a process group of its own. */
export interface GatewayCommand {
  readonly child: ChildProcess;
  /** npm's pid, which is also the id of the process group. */
  readonly pid: number;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the first line of stdout (or stderr) matching `pattern`; rejects if the process exits first. */
  line(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<string>;
  readonly exited: Promise<ProcessExit>;
}

/** Below Linux's (and macOS's) ephemeral range, from which the system hands out ports for `listen(0)`. */
const UNASSIGNED_PORTS = { from: 20_000, to: 32_000 };

const listensOn = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A port nothing listens on right now, for a process the test starts. Not one the system picks: it
 * could give the same port to the next `listen(0)` (the gateway's own store starts on one before the
 * gateway binds its port), and the gateway would find it taken. A port below the ephemeral range is
 * only ever taken by someone asking for it by number.
 */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = UNASSIGNED_PORTS.from + Math.floor(Math.random() * (UNASSIGNED_PORTS.to - UNASSIGNED_PORTS.from));
    if (await listensOn(port)) return port;
  }
  throw new Error('no free port below the ephemeral range after 50 tries');
};

/** Starts `npm start` from the repository root with `environment` added to this process's. */
export const startGatewayCommand = (environment: Record<string, string>): GatewayCommand => {
  const inherited = { ...process.env };
  // The test process may point its own code at a store; the command must choose its own.
  delete inherited.DYNAMODB_ENDPOINT;
  const child = spawn('npm', ['start'], {
    cwd: repositoryRoot,
    env: { ...inherited, GATEWAY_LOG_LEVEL: 'error', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = { stdout: '', stderr: '' };
  const waiting: {
    pattern: RegExp;
    stream: 'stdout' | 'stderr';
    resolve: (line: string) => void;
    reject: (error: Error) => void;
  }[] = [];
  const check = () => {
    for (const waiter of [...waiting]) {
      const found = output[waiter.stream].split('\n').find((line) => waiter.pattern.test(line));
      if (found !== undefined) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(found);
      }
    }
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]!.setEncoding('utf8');
    child[stream]!.on('data', (text: string) => {
      output[stream] += text;
      check();
    });
  }
  let ended = false;
  const exited = new Promise<ProcessExit>((resolve) => {
    // `close`, not `exit`: by then every byte the process wrote has been read.
    child.once('close', (code, signal) => {
      ended = true;
      check();
      for (const waiter of waiting.splice(0)) {
        waiter.reject(
          new Error(
            `npm start exited (${String(code ?? signal)}) before printing ${String(waiter.pattern)}:\n${output.stdout}\n${output.stderr}`,
          ),
        );
      }
      resolve({ code, signal });
    });
  });
  return {
    child,
    pid: child.pid!,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    line: (pattern, stream = 'stdout') =>
      new Promise((resolve, reject) => {
        const waiter = { pattern, stream, resolve, reject };
        waiting.push(waiter);
        check();
        if (ended && waiting.includes(waiter)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(new Error(`npm start has exited without printing ${String(pattern)}`));
        }
      }),
    exited,
  };
};

/** The pids of the processes whose parent is `pid` (Linux /proc). */
export const childrenOf = (pid: number): number[] => {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // The process ended while the table was read.
    }
  }
  return children;
};

/** The command line of a process, or undefined once it is gone. */
export const commandLineOf = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
};

/** Whether a process still runs (a zombie waiting to be reaped does not). */
export const isRunning = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
};

/**
 * Whether a process that is not our child (so sends no exit event we could wait on) has stopped
 * within `ms`: an orphan notices its parent is gone on its own schedule, a moment after the parent.
 */
export const stopsWithin = async (pid: number, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
};

/** The gateway's process (npm's child) and the embedded store's (the gateway's child that serves it). */
export const gatewayProcesses = (command: GatewayCommand): { gateway: number; store: number } => {
  const [gateway] = childrenOf(command.pid);
  if (gateway === undefined) throw new Error('npm start has no child process');
  const store = childrenOf(gateway).find((pid) => commandLineOf(pid)?.includes('--serve-embedded-store'));
  if (store === undefined) throw new Error('the gateway has no store process');
  return { gateway, store };
};
