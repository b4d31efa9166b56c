import type { Readable } from 'node:stream';
import type { EventSourceMessage } from 'eventsource-parser';
import { createSseParser, MAX_EVENT_CHARACTERS } from '../upstream/read-sse.js';
import { listenToBody, releaseBody, type BodyReading } from '../upstream/upstream-http.js';
import type { EventRelay, RelaySink } from './pass-through-stream.js';
import { CLOSE_BRACE, OPEN_BRACE } from '../http/json-characters.js';
import { parseJson } from '../http/parse-json.js';

/**
 * What a same-protocol stream does with one upstream event: the SSE text to send on (already framed),
 * or nothing to drop it. Throwing ends the stream with the client protocol's error event.
 */
export type PassThroughStep = (event: EventSourceMessage) => string | undefined;

/** An event framed as SSE again: one `data:` line per line of data, so multi-line data survives. */
export const frameEvent = (data: string, name?: string): string => {
  const lines = data.includes('\n') ? data.split('\n').join('\ndata: ') : data;
  return name === undefined ? `data: ${lines}\n\n` : `event: ${name}\ndata: ${lines}\n\n`;
};

/** How a protocol's stream ends: whether its last event has been seen, and the error if the body ended first. */
export interface RelayEnding {
  /** True once the protocol's last event has been seen: the rest of the body is not waited for. */
  complete(): boolean;
  /** The error for a body that ended before that event. */
  unfinished(): Error;
}

/**
 * The upstream's events, each passed through `step`, sent on in batches of one network read: what
 * arrived together leaves together, the moment it has been read. Only the SSE framing is parsed
 * here, never the JSON inside.
 */
export const relayEvents = (
  body: Readable,
  idleMs: number,
  step: PassThroughStep,
  ending: RelayEnding,
  maxEventCharacters = MAX_EVENT_CHARACTERS,
): EventRelay => {
  let reading: BodyReading | undefined;
  let sink: RelaySink | undefined;
  let over = false;
  let batch = '';
  // A failing event ends the stream only after the events that arrived before it have gone out.
  let failure: { readonly error: unknown } | undefined;
  // Set once the body has ended: an event completed then had no blank line after it.
  let bodyEnded = false;
  const parser = createSseParser(
    (event) => {
      if (failure) return;
      // A body that ended inside an event leaves a piece of one: the stream is then unfinished.
      if (bodyEnded && !wholeAtEnd(event.data)) return;
      try {
        const framed = step(event);
        if (framed !== undefined) batch += framed;
      } catch (error) {
        failure = { error };
      }
    },
    (error) => (failure ??= { error }),
    maxEventCharacters,
  );
  const decoder = new TextDecoder();
  /*
   * The body's chunks not yet fed: a network read of a chunked body is many data events (one per
   * chunk the upstream wrote, often one per event), and they are decoded and parsed as one text once
   * the read has handed them all over, instead of a decode and a parse each.
   */
  let unread: Buffer[] = [];
  const feedUnread = () => {
    if (unread.length === 0) return;
    const chunks = unread;
    unread = [];
    // Past the protocol's last event, or a failed one, nothing is relayed: the stream ends with this read.
    if (failure) return;
    parser.feed(decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), { stream: true }));
  };

  const finish = (error?: unknown) => {
    if (over) return;
    over = true;
    reading?.stop();
    if (error === undefined) sink?.end();
    else sink?.fail(error);
  };
  /** Sends what the text fed so far made; false once the stream is over. */
  const flush = (): boolean => {
    if (batch !== '') {
      const text = batch;
      batch = '';
      if (sink?.send(text) === false) reading?.pause();
    }
    if (failure) finish(failure.error);
    return !over;
  };

  /*
   * What one network read made goes out once all its chunks have been handed over, as one send, not
   * one send (and a trip through the client's streams) each. The body's end, emitted before this
   * runs, sends what is left itself.
   */
  let flushQueued = false;
  const flushRead = () => {
    flushQueued = false;
    feedUnread();
    if (flush() && ending.complete()) finish();
  };

  return {
    start: (target) => {
      if (sink || over) return;
      sink = target;
      reading = listenToBody(body, idleMs, {
        chunk: (chunk) => {
          if (failure || ending.complete()) return;
          unread.push(chunk);
          if (!flushQueued) {
            flushQueued = true;
            queueMicrotask(flushRead);
          }
        },
        end: () => {
          feedUnread();
          parser.feed(decoder.decode());
          // A last event without its blank line still counts, when whole: some servers end the body right after it.
          bodyEnded = true;
          if (!failure) parser.feed('\n\n');
          if (flush()) finish(ending.complete() ? undefined : ending.unfinished());
        },
        // A read's events go out before its failure, as before its end, whichever Node hears first.
        error: (error) => {
          feedUnread();
          if (flush()) finish(error);
        },
      });
    },
    resume: () => reading?.resume(),
    stop: () => {
      if (over) return;
      over = true;
      if (reading) reading.stop();
      else releaseBody(body, idleMs);
    },
  };
};

/** The first or last character of `text` that is not JSON whitespace, as a code; -1 when none. */
const edgeCode = (text: string, fromEnd: boolean): number => {
  for (let index = fromEnd ? text.length - 1 : 0; index >= 0 && index < text.length; index += fromEnd ? -1 : 1) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return code;
  }
  return -1;
};

/**
 * Whether an event's data is framed as one JSON object: `{` first and `}` last. What a relayed stream
 * checks of each event it does not parse: a whole event from a working upstream always is, and a
 * piece of one, or text that is not JSON, almost never; parsing every event to be sure is the cost the
 * pass-through exists to save. (An event cut by the body's end is held to a full parse: `wholeAtEnd`.)
 */
export const framesObject = (data: string): boolean =>
  edgeCode(data, false) === OPEN_BRACE && edgeCode(data, true) === CLOSE_BRACE;

/** Whether an event completed by the body's end is whole: JSON when it starts as an object; any other text is its protocol's to judge. */
const wholeAtEnd = (data: string): boolean => {
  if (edgeCode(data, false) !== OPEN_BRACE) return true;
  try {
    parseJson(data);
    return true;
  } catch {
    return false;
  }
};

/*
 * Member scans of serialised JSON, run on every event of a relayed stream. A member key is a quoted
 * name preceded by `{` or `,`: inside a string every quote is escaped, so a match never starts in
 * one. The scans start at the quoted name, a literal the regular-expression engine searches for
 * quickly, and check what precedes it by look-behind only there (a pattern starting at `[{,]` is
 * tried at every brace and comma of the event). Strings are matched as runs between escapes rather
 * than one character at a time.
 */
const KEY_BEFORE = '(?<=[{,]\\s*)';
/** A JSON string's content: runs of plain characters between escapes. */
const STRING_CONTENT = '[^"\\\\]*(?:\\\\.[^"\\\\]*)*';

/** Whether serialised JSON has a `"name":` member whose value starts with `valueStart` (a pattern), if given. */
export const memberTest = (name: string, valueStart = ''): RegExp =>
  new RegExp(`${KEY_BEFORE}"${name}"\\s*:${valueStart ? `\\s*${valueStart}` : ''}`);

/** Matches the first `"name": "…"` member; its string value, quotes included, is group 1. */
export const stringMember = (name: string): RegExp =>
  new RegExp(`${KEY_BEFORE}"${name}"\\s*:\\s*("${STRING_CONTENT}")`);

/**
 * The event framed for the client with the string value `member` (from `stringMember`) matches
 * replaced by `json`, and with `cut` (a null member) taken out when given; undefined when the event has
 * no such string member. Made from the event's own pieces at once: replacing, cutting and framing in
 * turn copied each event's text twice more, every event of every relayed stream.
 */
export const frameRenamed = (data: string, member: RegExp, json: string, cut?: NullMember): string | undefined => {
  const match = member.exec(data);
  if (!match) return undefined;
  const valueEnd = match.index + match[0].length;
  const valueStart = valueEnd - match[1]!.length;
  let keptEnd = data.length;
  let close = '';
  if (cut !== undefined) {
    // The member as the object's last is cut off without a search; anywhere else, it is searched for.
    if (!data.endsWith(cut.last) || data.length - cut.last.length < valueEnd)
      return frameEvent(withoutMember(data.slice(0, valueStart) + json + data.slice(valueEnd), cut));
    keptEnd = data.length - cut.last.length;
    close = '}';
  }
  const renamed = data.slice(0, valueStart) + json + data.slice(valueEnd, keptEnd) + close;
  // The model's JSON has no line break: only the event's own text can need more than one `data:` line.
  return data.includes('\n') ? frameEvent(renamed) : `data: ${renamed}\n\n`;
};

/** Matches every string value of the given members; the value, still JSON-escaped, is group 1. */
export const stringMembers = (names: readonly string[]): RegExp =>
  new RegExp(`${KEY_BEFORE}"(?:${names.join('|')})"\\s*:\\s*"(${STRING_CONTENT})"`, 'g');

/** The values matched by `members` (from `stringMembers`) joined, still JSON-escaped: enough for a token estimate. */
export const joinedStringMembers = (text: string, members: RegExp): string => {
  let joined = '';
  members.lastIndex = 0;
  for (let match = members.exec(text); match; match = members.exec(text)) joined += match[1];
  return joined;
};

/** Event data kept before it is scanned: enough for a whole short answer, bounded for a long one. */
const UNSCANNED_CHARACTERS = 64 * 1024;

/**
 * The answer text a relayed stream carried, for an estimate when the upstream reports no usage. Nearly
 * every upstream does, so events are kept as they come and scanned only when the text is asked for,
 * or once what is kept passes a bound: scanning each event as it went by was about 3 % of a relayed
 * stream's CPU, for a text almost never read.
 */
export class AnswerText {
  private unscanned: string[] = [];
  private unscannedCharacters = 0;
  private scanned = '';

  /** `members`, from `stringMembers`: the members whose string values are answer text. */
  constructor(private readonly members: RegExp) {}

  add(data: string): void {
    this.unscanned.push(data);
    this.unscannedCharacters += data.length;
    if (this.unscannedCharacters > UNSCANNED_CHARACTERS) this.scan();
  }

  /** The text so far, still JSON-escaped: enough for a token estimate. */
  text(): string {
    this.scan();
    return this.scanned;
  }

  private scan(): void {
    for (const data of this.unscanned) this.scanned += joinedStringMembers(data, this.members);
    this.unscanned = [];
    this.unscannedCharacters = 0;
  }
}

/** A `"name": null` member to find: its pattern, and the member as an object's last, written compactly. */
export interface NullMember {
  /** Matches the first such member; what precedes its key (`{` or `,`) is group 1. */
  readonly pattern: RegExp;
  /** `,"name":null}`: how OpenAI-style streams end every chunk but the usage one. */
  readonly last: string;
}

export const nullMember = (name: string): NullMember => ({
  pattern: new RegExp(`(?<=([{,])\\s*)"${name}"\\s*:\\s*null(?=\\s*[,}])`),
  last: `,${JSON.stringify(name)}:null}`,
});

/**
 * The text without `member` and the comma that went with it. Where the text ends with the member as
 * its last, it is cut off without a search: what ends the text closes the outermost object, so the
 * member before it is one of that object's own.
 */
export const withoutMember = (text: string, member: NullMember): string => {
  if (text.endsWith(member.last)) return `${text.slice(0, -member.last.length)}}`;
  const match = member.pattern.exec(text);
  if (!match) return text;
  let start = match.index;
  let end = start + match[0].length;
  // A later member takes the comma before it; the first member, the comma after it.
  if (match[1] === ',') start = text.lastIndexOf(',', start);
  else {
    while (end < text.length && /\s/.test(text[end]!)) end++;
    if (text[end] === ',') end++;
  }
  return text.slice(0, start) + text.slice(end);
};
