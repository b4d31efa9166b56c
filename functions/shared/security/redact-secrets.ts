import { REDACTED, removeCredentialPatterns } from './credential-patterns.js';

export { REDACTED };

/**
 * Removes credentials from text before it reaches a client or a log: the secrets this process knows
 * (channels' upstream keys, the function's own AWS credentials) wherever a long enough piece of one
 * appears, raw, URL-encoded or JSON-escaped, in base64 (standard or URL-safe, at any offset in a
 * longer encoded text) or hex, in any letter case; and anything shaped like a credential (see
 * credential-patterns.ts). Every log line goes through it, so the common case (nothing to remove) is
 * a few passes over the text with no allocation.
 */

/**
 * The shortest piece of a known secret that is removed. Any run of 8 or more characters of a secret
 * is removed wherever it appears; shorter pieces are left, since they are too short to help anyone
 * guess the rest (a 7-character piece of a 40-character random key leaves 33 unknown) and removing
 * them would mangle ordinary words. A whole secret shorter than this is removed where it stands as a
 * word of its own.
 */
export const MIN_SECRET_FRAGMENT = 8;

/**
 * A run of plain words (`upstream`, `provider_error`) shorter than this is removed only when it is a
 * whole secret: a key made of words (`upstream-key-of-first`) shares them with ordinary text, the
 * gateway's own error codes among them, and a word is no secret. Random keys are almost never cut
 * into such runs, so every other piece of 8 characters still goes.
 */
const PLAIN_WORDS_KEPT_BELOW = 16;
const PLAIN_WORDS = /^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)(?:[-_. ]?(?:[a-z]+|[A-Z][a-z]+|[A-Z]+))*[-_. ]?$/;

/**
 * A run found only in a secret's base64 or hex form is removed from this length on: 8 hex digits are
 * 4 bytes of the secret, few enough to turn up by chance in the hex and base64 that logs are full
 * of (hashes, ids), while 16 are more than any chance match.
 */
const ENCODED_MIN_RUN = 16;

/**
 * Whether a run of secret pieces found in text is one to remove (see PLAIN_WORDS_KEPT_BELOW and
 * ENCODED_MIN_RUN); `plain` when some piece of it came from a spelling of the secret itself.
 */
const isSecretRun = (run: string, index: FragmentIndex, plain: boolean): boolean => {
  if (!plain) return run.length >= ENCODED_MIN_RUN;
  if (run.length >= PLAIN_WORDS_KEPT_BELOW || !PLAIN_WORDS.test(run)) return true;
  const folded = foldCase(run);
  for (const whole of index.wordSecrets) if (folded.includes(whole)) return true;
  return false;
};

/** Secrets shorter than this are not credentials worth the damage their removal would do. */
const MIN_SHORT_SECRET = 4;

/** Keeps the memory of rotated keys bounded: the oldest are forgotten first. */
const MAX_KNOWN_SECRETS = 10_000;

/** The function's own AWS credentials, as the Lambda runtime (and the SDK's default chain) reads them. */
export const AWS_CREDENTIAL_VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;

const HASH_BASE = 31;
const FILTER_BITS = 16;
const FILTER_MASK = (1 << FILTER_BITS) - 1;

/** ASCII letters in one case: a secret echoed upper- or lower-cased (a header, a hex dump) is the same secret. */
const foldCode = (code: number): number => (code >= 65 && code <= 90 ? code | 32 : code);
const foldCase = (text: string): string =>
  /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()) : text;

/**
 * The characters of the base64 of `bytes` that depend on them alone, as they appear when the bytes
 * start `offset` (0 to 2) bytes into a longer encoded text: what a secret inside an encoded document
 * (a Basic authorization, a JSON body in base64) looks like whatever came before it.
 */
const base64Core = (bytes: Buffer, offset: number): string => {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
    .toString('base64')
    .replace(/=+$/, '');
  return encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
};

/** A secret's encoded forms: base64 at each offset, standard and URL-safe, and hex. */
const encodedSpellings = (secret: string): string[] => {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [bytes.toString('hex')];
  for (let offset = 0; offset < 3; offset++) {
    const core = base64Core(bytes, offset);
    forms.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
};

/** The ways a secret may be written in text that quotes it. */
const spellings = (secret: string): string[] => {
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [
    secret,
    json,
    json.replaceAll('/', '\\/'),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replaceAll('%20', '+'),
  ];
  return [...new Set(forms)];
};

/** A polynomial hash of `length` characters from `start`, in 32-bit arithmetic. */
const hashAt = (text: string, start: number, length: number): number => {
  let hash = 0;
  for (let index = start; index < start + length; index++)
    hash = (Math.imul(hash, HASH_BASE) + foldCode(text.charCodeAt(index))) | 0;
  return hash;
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every MIN_SECRET_FRAGMENT-long piece of every spelling of the known secrets, for a Rabin-Karp scan:
 * a bitmap of hashes rejects almost every position of ordinary text at the cost of one array read,
 * the exact pieces confirm the rest.
 */
interface FragmentIndex {
  readonly filter: Uint8Array;
  readonly hashes: Set<number>;
  /** Each piece, letters folded to lower case, and whether a plain spelling has it (else only an encoded one). */
  readonly fragments: Map<string, boolean>;
  /** Spellings of secrets short enough to look like plain words: removed whenever they appear whole. */
  readonly wordSecrets: Set<string>;
  readonly short: string[];
  /** Whole short secrets, as words. */
  shortSecrets: RegExp | undefined;
}

const emptyIndex = (): FragmentIndex => ({
  filter: new Uint8Array(1 << FILTER_BITS),
  hashes: new Set(),
  fragments: new Map(),
  wordSecrets: new Set(),
  short: [],
  shortSecrets: undefined,
});

/** Adds one secret to the index in place: a new key costs its own length, not the whole index. */
const indexSecret = (index: FragmentIndex, secret: string): void => {
  if (secret.length < MIN_SECRET_FRAGMENT) {
    index.short.push(secret);
    const alternatives = [...index.short]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|');
    index.shortSecrets = new RegExp(`(?<![A-Za-z0-9])(?:${alternatives})(?![A-Za-z0-9])`, 'g');
    return;
  }
  const forms = [
    ...spellings(secret).map((spelling) => ({ spelling: foldCase(spelling), plain: true })),
    ...encodedSpellings(secret).map((spelling) => ({ spelling: foldCase(spelling), plain: false })),
  ];
  for (const { spelling, plain } of forms) {
    if (plain && spelling.length < PLAIN_WORDS_KEPT_BELOW) index.wordSecrets.add(spelling);
    for (let start = 0; start + MIN_SECRET_FRAGMENT <= spelling.length; start++) {
      const fragment = spelling.slice(start, start + MIN_SECRET_FRAGMENT);
      const known = index.fragments.get(fragment);
      if (known === true || known === plain) continue;
      const hash = hashAt(fragment, 0, MIN_SECRET_FRAGMENT);
      index.fragments.set(fragment, plain);
      index.hashes.add(hash);
      index.filter[hash & FILTER_MASK] = 1;
    }
  }
};

/** How many backslashes end at `position` (exclusive), going backwards. */
const backslashesBefore = (text: string, position: number): number => {
  let count = 0;
  while (position - count - 1 >= 0 && text.charCodeAt(position - count - 1) === 92) count++;
  return count;
};

/**
 * Widens a span so that it never splits a JSON escape (`\"`, `\\`, `\uXXXX`): replacing half of one
 * would leave a log line that is no longer JSON.
 */
const widenOverEscapes = (text: string, start: number, end: number): [number, number] => {
  if (backslashesBefore(text, start) % 2 === 1) start -= 1;
  if (backslashesBefore(text, end) % 2 === 1) end += text.charCodeAt(end) === 117 /* u */ ? 5 : 1;
  return [start, Math.min(end, text.length)];
};

/** The text with every run of known-secret pieces replaced by REDACTED; the same string when none. */
const removeKnownFragments = (text: string, index: FragmentIndex): string => {
  if (index.hashes.size === 0 || text.length < MIN_SECRET_FRAGMENT) return text;
  const power = (() => {
    let value = 1;
    for (let step = 1; step < MIN_SECRET_FRAGMENT; step++) value = Math.imul(value, HASH_BASE);
    return value;
  })();
  let result = '';
  let copiedUpTo = 0;
  let spanStart = -1;
  let spanEnd = -1;
  let spanPlain = false;
  let removed = false;
  const flush = () => {
    const [start, end] = widenOverEscapes(text, Math.max(spanStart, copiedUpTo), spanEnd);
    if (!isSecretRun(text.slice(start, end), index, spanPlain)) return;
    result += text.slice(copiedUpTo, start) + REDACTED;
    copiedUpTo = end;
    removed = true;
  };
  let hash = hashAt(text, 0, MIN_SECRET_FRAGMENT);
  const last = text.length - MIN_SECRET_FRAGMENT;
  for (let position = 0; ; position++) {
    const plain =
      index.filter[hash & FILTER_MASK] === 1 && index.hashes.has(hash)
        ? index.fragments.get(foldCase(text.slice(position, position + MIN_SECRET_FRAGMENT)))
        : undefined;
    if (plain !== undefined) {
      if (spanStart >= 0 && position <= spanEnd) {
        spanEnd = position + MIN_SECRET_FRAGMENT;
        spanPlain ||= plain;
      } else {
        if (spanStart >= 0) flush();
        spanStart = position;
        spanEnd = position + MIN_SECRET_FRAGMENT;
        spanPlain = plain;
      }
    }
    if (position >= last) break;
    hash =
      (Math.imul((hash - Math.imul(foldCode(text.charCodeAt(position)), power)) | 0, HASH_BASE) +
        foldCode(text.charCodeAt(position + MIN_SECRET_FRAGMENT))) |
      0;
  }
  if (spanStart < 0) return text;
  flush();
  return removed ? result + text.slice(copiedUpTo) : text;
};

export interface SecretRedactorOptions {
  /** Where the function's own credentials are read from, on every use (tests change them). */
  readonly environment?: () => Readonly<Record<string, string | undefined>>;
}

/** Known secrets and the rules that remove them from text. One per process serves everything. */
export class SecretRedactor {
  private readonly known = new Set<string>();
  private readonly environment: (() => Readonly<Record<string, string | undefined>>) | undefined;
  private index: FragmentIndex | undefined;

  constructor(options: SecretRedactorOptions = {}) {
    this.environment = options.environment;
  }

  /** Adds a secret to remove from now on (an upstream key, as soon as a channel is about to use it). */
  remember(secret: string | null | undefined): void {
    if (!secret || secret.length < MIN_SHORT_SECRET || this.known.has(secret)) return;
    if (this.known.size >= MAX_KNOWN_SECRETS) {
      // Forgetting needs a fresh index; it happens once per MAX_KNOWN_SECRETS new keys at most.
      this.known.delete(this.known.values().next().value!);
      this.index = undefined;
    }
    this.known.add(secret);
    if (this.index) indexSecret(this.index, secret);
  }

  /** The text with every credential removed; the very same string when there was none. */
  redact(text: string): string {
    // Known secrets first: the shapes then see their markers and treat them as part of a value.
    const index = this.currentIndex();
    let result = removeKnownFragments(text, index);
    if (index.shortSecrets) result = result.replace(index.shortSecrets, REDACTED);
    return removeCredentialPatterns(result);
  }

  /** Every string in a JSON-like value (keys included) redacted, in a copy; the value itself when clean. */
  redactDeep<T>(value: T): T {
    return redactValue(value, (text) => this.redact(text)) as T;
  }

  /**
   * The index of what is known, built on first use; the environment is read then (it does not change
   * under a running function, and reading it on every line would cost more than the scan).
   */
  private currentIndex(): FragmentIndex {
    if (this.index) return this.index;
    if (this.environment) {
      const variables = this.environment();
      for (const name of AWS_CREDENTIAL_VARIABLES) this.remember(variables[name]);
    }
    const index = emptyIndex();
    for (const secret of this.known) indexSecret(index, secret);
    this.index = index;
    return index;
  }
}

const redactValue = (value: unknown, redact: (text: string) => string): unknown => {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    const items = value.map((item) => redactValue(item, redact));
    return items.every((item, position) => item === value[position]) ? value : items;
  }
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const cleanKey = redact(key);
    const cleanItem = redactValue(item, redact);
    if (cleanKey !== key || cleanItem !== item) changed = true;
    copy[cleanKey] = cleanItem;
  }
  return changed ? copy : value;
};

/** The process's redactor: knows the function's AWS credentials and every upstream key in use. */
export const secretRedactor = new SecretRedactor({ environment: () => process.env });

/** Text from an upstream or for a log line, without any credential. */
export const redactSecrets = (text: string): string => secretRedactor.redact(text);

/** Remembers a secret to remove from all text from now on. */
export const rememberSecret = (secret: string | null | undefined): void => secretRedactor.remember(secret);
