/**
 * The abort controller of one streamed upstream call: aborted by whoever reads the stream (it ended
 * early) or, at once, when the client leaves, even while failover is still looking for a channel.
 */
export const upstreamCallFor = (client: AbortSignal): AbortController => {
  const call = new AbortController();
  if (client.aborted) call.abort();
  else client.addEventListener('abort', () => call.abort(), { once: true });
  return call;
};
