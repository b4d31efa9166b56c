/**
 * A start refused for a reason the operator can act on (a data dir in use, a port taken): its message
 * is the whole story, printed as one line without a stack.
 */
export class StartRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartRefusedError';
  }
}
