import { MIN_SECRET_FRAGMENT } from '../../functions/shared/security/redact-secrets.js';

/** A credential a test must never find in an answer or a log line. */
export interface WatchedSecret {
  readonly name: string;
  readonly value: string;
  /** How many leading characters may show (a gateway key's prefix); none by default. */
  readonly visiblePrefix?: number;
}

/** The spellings a secret may take in bytes that quote it. */
const spellingsOf = (value: string): string[] => [
  ...new Set([
    value,
    JSON.stringify(value).slice(1, -1),
    JSON.stringify(value).slice(1, -1).replaceAll('/', '\\/'),
    encodeURIComponent(value),
  ]),
];

/**
 * Fails when any piece of MIN_SECRET_FRAGMENT characters of any secret, in any of its spellings,
 * appears in `text` (beyond the prefix it may show), naming the secret and where.
 */
export const expectNoSecretIn = (text: string, secrets: readonly WatchedSecret[], where: string): void => {
  for (const secret of secrets) {
    for (const spelling of spellingsOf(secret.value)) {
      for (let start = 0; start + MIN_SECRET_FRAGMENT <= spelling.length; start++) {
        if (start + MIN_SECRET_FRAGMENT <= (secret.visiblePrefix ?? 0)) continue;
        const piece = spelling.slice(start, start + MIN_SECRET_FRAGMENT);
        const at = text.indexOf(piece);
        if (at >= 0) {
          throw new Error(
            `${where}: a piece of ${secret.name} ('${piece}') appears at ${at}: …${text.slice(Math.max(0, at - 80), at + 80)}…`,
          );
        }
      }
    }
  }
};

/** Everything the process writes to stdout and stderr (the gateway's log lines), until `stop`. */
export interface CapturedOutput {
  readonly text: () => string;
  stop(): void;
}

export const captureProcessOutput = (level = 'debug'): CapturedOutput => {
  // The suite runs with logs off (quiet-logs.ts): what is checked for secrets must be written first.
  const previousLevel = process.env.GATEWAY_LOG_LEVEL;
  process.env.GATEWAY_LOG_LEVEL = level;
  const chunks: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  }
  return {
    text: () => chunks.join(''),
    stop: () => {
      streams.forEach((stream, index) => (stream.write = originals[index]!));
      if (previousLevel === undefined) delete process.env.GATEWAY_LOG_LEVEL;
      else process.env.GATEWAY_LOG_LEVEL = previousLevel;
    },
  };
};
