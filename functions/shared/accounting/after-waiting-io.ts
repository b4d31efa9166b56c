/**
 * Resolves in the event loop's next check phase, once the I/O callbacks already waiting (other
 * requests' bytes, new connections, upstream answers) have run. The bookkeeping after a response
 * (settlement, usage record) awaits it before its first store call: in a process that serves many
 * requests at once (the local runtime, multi-concurrency Lambda), the SDK's CPU work for one
 * request's writes then never runs ahead of a request that is ready to start, and a buffered answer
 * goes out before its writes are serialised. The invocation still awaits the writes themselves
 * before it ends (a Lambda environment is frozen once it returns); this costs one turn of the loop.
 */
export const afterWaitingIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
