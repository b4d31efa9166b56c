/** A same-protocol stream ready to send: pre-framed SSE text, and what the meter needs if no usage comes. */
export interface PassThroughStream {
  readonly events: AsyncIterable<{ readonly raw: string }>;
  /** The answer text seen so far (JSON-escaped), for an estimate when the upstream reports no usage. */
  completionText(): string;
}
