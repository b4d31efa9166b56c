/**
 * `JSON.parse`, safe from a V8 bug of some Node 24 releases (nodejs/node#63785; Lambda's runtime
 * follows Node's releases on its own schedule): once any parse in the process has met a member named
 * `\` after some members, a later object with the same members followed by a member whose name is a
 * single escape (`"\t"`, `"\""`, `"\u540d"`, which is how Python's `json.dumps` writes a one-letter
 * CJK name) gets `\` for that name. One request's body would change the names in another's (a tool
 * parameter's, say). Whether this runtime has the bug is probed once, when the module loads, on member
 * names no text uses. Where it has it, text that holds such a name is read by the reader below, which
 * makes every name from its own string; elsewhere, and for all other text, `JSON.parse` reads it. The
 * global `JSON.parse` is never replaced: code that uses it (the AWS SDK) gets the runtime's own.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  JSON_NUMBER,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-characters.js';

/** A reviver's third argument: the source text of a primitive value, as JSON.parse gives it. */
interface ReviverContext {
  readonly source?: string;
}

type Reviver = (this: unknown, key: string, value: unknown, context?: ReviverContext) => unknown;

/** What a primitive member was when read, and its text: a reviver is given the text while it stands. */
interface PrimitiveSource {
  readonly value: unknown;
  readonly text: string;
}

/** Per object or array read, the source of each primitive member, by name (an array's, by index). */
type Sources = WeakMap<object, Map<string, PrimitiveSource>>;

const nativeParse = JSON.parse;

/**
 * A member name of one escape, which the bug reads as `\`. It may also match inside a string: a false
 * alarm, read slower but right.
 */
const ONE_ESCAPE_NAME = /"\\(?:u[0-9A-Fa-f]{4}|[^u])"[ \t\n\r]*:/;

const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = new RegExp(JSON_NUMBER.source, 'y');
const LITERAL = /true|false|null/y;
const LITERALS: Record<string, unknown> = { true: true, false: false, null: null };

/** A member as `JSON.parse` makes it: an own data property, `__proto__` included. */
const setMember = (target: Record<string, unknown>, name: string, value: unknown): void => {
  if (name === '__proto__')
    Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
  else target[name] = value;
};

/** Reads JSON text value by value; the strings (member names among them) through `JSON.parse` of each alone. */
class JsonReader {
  private index = 0;

  /** `sources`, given only when a reviver will read them, collects each primitive's text. */
  constructor(
    private readonly text: string,
    private readonly sources?: Sources,
  ) {}

  /** The whole text's value, read as the member `''` of `holder`, as a reviver first sees it. */
  readDocument(holder: object = {}): unknown {
    const value = this.readMember(holder, '');
    this.skipWhitespace();
    if (this.index !== this.text.length) this.fail();
    return value;
  }

  /** A member or element, its text noted when it is a primitive and sources are collected. */
  private readMember(holder: object, name: string): unknown {
    const start = this.skipWhitespace();
    const value = this.readValue();
    if (this.sources && (value === null || typeof value !== 'object')) {
      let members = this.sources.get(holder);
      if (!members) this.sources.set(holder, (members = new Map()));
      members.set(name, { value, text: this.text.slice(start, this.index) });
    }
    return value;
  }

  private readValue(): unknown {
    this.skipWhitespace();
    const code = this.text.charCodeAt(this.index);
    if (code === OPEN_BRACE) return this.readObject();
    if (code === OPEN_BRACKET) return this.readArray();
    if (code === QUOTE) return this.readString();
    const number = this.match(NUMBER);
    if (number !== undefined) return Number(number);
    const literal = this.match(LITERAL);
    if (literal !== undefined) return LITERALS[literal];
    return this.fail();
  }

  private readObject(): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    if (this.emptyList(CLOSE_BRACE)) return object;
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.index) !== QUOTE) this.fail();
      const name = this.readString();
      this.skipWhitespace();
      this.expect(COLON);
      setMember(object, name, this.readMember(object, name));
      if (this.endOfList(CLOSE_BRACE)) return object;
    }
  }

  private readArray(): unknown[] {
    const array: unknown[] = [];
    if (this.emptyList(CLOSE_BRACKET)) return array;
    for (;;) {
      array.push(this.readMember(array, String(array.length)));
      if (this.endOfList(CLOSE_BRACKET)) return array;
    }
  }

  /** Past a list's opening bracket or brace: true, and past its close too, when nothing is in it. */
  private emptyList(close: number): boolean {
    this.index += 1;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.index) !== close) return false;
    this.index += 1;
    return true;
  }

  /** After a member or an element: true at the list's end, false after a comma. */
  private endOfList(close: number): boolean {
    this.skipWhitespace();
    const code = this.text.charCodeAt(this.index);
    this.index += 1;
    if (code === close) return true;
    if (code !== COMMA) this.fail(this.index - 1);
    return false;
  }

  /** From the opening quote to the first quote not escaped; what lies between is JSON.parse's to check. */
  private readString(): string {
    const start = this.index;
    let end = start;
    for (;;) {
      end = this.text.indexOf('"', end + 1);
      if (end < 0) return this.fail(this.text.length);
      let backslashes = 0;
      while (this.text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) break;
    }
    this.index = end + 1;
    return nativeParse(this.text.slice(start, end + 1)) as string;
  }

  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.index;
    const found = pattern.exec(this.text);
    if (!found) return undefined;
    this.index = pattern.lastIndex;
    return found[0];
  }

  /** Past any whitespace: the index of what follows. */
  private skipWhitespace(): number {
    WHITESPACE.lastIndex = this.index;
    WHITESPACE.exec(this.text);
    this.index = WHITESPACE.lastIndex;
    return this.index;
  }

  private expect(code: number): void {
    if (this.text.charCodeAt(this.index) !== code) this.fail();
    this.index += 1;
  }

  private fail(at: number = this.index): never {
    throw new SyntaxError(
      at >= this.text.length ? 'Unexpected end of JSON input' : `Unexpected token in JSON at position ${at}`,
    );
  }
}

/**
 * The reviver applied as `JSON.parse` applies it: members first, depth first, `undefined` deletes; a
 * primitive's source text given while the value is still the one read (`source` of `holder[name]`).
 */
const revive = (
  holder: Record<string, unknown>,
  name: string,
  reviver: Reviver,
  sources: Sources,
  source: PrimitiveSource | undefined,
): unknown => {
  const value = holder[name];
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = sources.get(record);
    for (const member of Array.isArray(value) ? value.keys() : Object.keys(value)) {
      const key = String(member);
      const revived = revive(record, key, reviver, sources, members?.get(key));
      if (revived === undefined) delete record[key];
      else setMember(record, key, revived);
    }
    return reviver.call(holder, name, value, {});
  }
  return reviver.call(holder, name, value, source && Object.is(source.value, value) ? { source: source.text } : {});
};

/** The reader's way: text that may hold a misread name by the reader, the rest by `JSON.parse`. */
const guardedParse = (text: string, reviver?: Reviver): unknown => {
  if (!ONE_ESCAPE_NAME.test(text)) return reviver ? nativeParse(text, reviver) : nativeParse(text);
  try {
    if (!reviver) return new JsonReader(text).readDocument();
    const sources: Sources = new WeakMap();
    const holder: Record<string, unknown> = {};
    holder[''] = new JsonReader(text, sources).readDocument(holder);
    return revive(holder, '', reviver, sources, sources.get(holder)?.get(''));
  } catch (error) {
    // The reader recurses: text nested past the stack is refused like malformed text (a client's body
    // is held to 128 levels before it gets here; JSON.parse, which does not recurse, would read it).
    if (error instanceof RangeError) throw new SyntaxError('JSON nested too deeply to read', { cause: error });
    throw error;
  }
};

const plainParse = (text: string, reviver?: Reviver): unknown =>
  reviver ? nativeParse(text, reviver) : nativeParse(text);

/**
 * Whether `parse` reads one-escape member names back wrong after a `\` member at the same place: the
 * bug's own trigger and canary, on a first member name of the probe's own, so that the cache entry
 * it leaves behind is one no other text can reach.
 */
export const misreadsOneEscapeNames = (parse: (text: string) => unknown = nativeParse): boolean => {
  const first = JSON.stringify(`parse-json-probe-${Math.random().toString(36).slice(2)}`);
  parse(`{${first}:[],"\\\\":0}`);
  return ['\\t', '\\"', '\\u540d'].some((escaped) => {
    const keys = Object.keys(parse(`{${first}:1,"${escaped}":2}`) as object);
    return keys[1] !== nativeParse(`"${escaped}"`);
  });
};

/** Probed once per process, at load: a few microseconds, never on a request. */
export const JSON_PARSE_MISREADS_NAMES = misreadsOneEscapeNames();

/** The parse for `misreads` (what the probe found): the reader's way where the bug is, else `JSON.parse`. */
export const parseFor = (misreads: boolean): ((text: string, reviver?: Reviver) => unknown) =>
  misreads ? guardedParse : plainParse;

/** `JSON.parse`, right on this runtime whatever was parsed before. */
export const parseJson = parseFor(JSON_PARSE_MISREADS_NAMES);
