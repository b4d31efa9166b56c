/** Where a relay sends the SSE text it makes, the moment it makes it. */
export interface RelaySink {
  /** Pre-framed SSE text to send; `false` when the client is not keeping up (the relay waits for `resume`). */
  send(text: string): boolean;
  /** The upstream's stream is complete. */
  end(): void;
  /** The stream broke off: the client protocol's error event goes out, then the end. */
  fail(error: unknown): void;
}

/**
 * A same-protocol stream, pushed rather than pulled: each network chunk of the upstream's body becomes
 * at most one `send`, with no iterator or promise between the socket and the client's stream.
 */
export interface EventRelay {
  /** Starts reading the upstream; called once, when the client's stream first wants data. */
  start(sink: RelaySink): void;
  /** The client caught up after a `send` that returned `false`. */
  resume(): void;
  /** The client went away: read no more, and let go of the upstream's body. */
  stop(): void;
}

/** A same-protocol stream ready to send, and what the meter needs if no usage comes. */
export interface PassThroughStream {
  readonly relay: EventRelay;
  /** The answer text seen so far (JSON-escaped), for an estimate when the upstream reports no usage. */
  completionText(): string;
}
