/**
 * The abort controller of one streamed upstream call: aborted by whoever reads the stream (it ended
 * early) or, at once, when the client leaves, even while failover is still looking for a channel.
 */
export const upstreamCallFor = (client: AbortSignal): AbortController => {
  const call = new AbortController();
  // The reason travels along: running out of time is reported differently from the client leaving.
  if (client.aborted) call.abort(client.reason);
  else client.addEventListener('abort', () => call.abort(client.reason), { once: true });
  return call;
};
