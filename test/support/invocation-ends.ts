import { lambdaRuntimeEvents, type InvocationEnd } from '../../infra/local/function-timeout.js';

const ended = new Map<string, InvocationEnd>();
const waiting = new Map<string, (end: InvocationEnd) => void>();

lambdaRuntimeEvents.on('invocation-end', (end) => {
  ended.set(end.requestId, end);
  waiting.get(end.requestId)?.(end);
});

/** Resolves when the local runtime's invocation for this request id (`x-request-id`) has ended. */
export const invocationEnd = (requestId: string): Promise<InvocationEnd> => {
  const known = ended.get(requestId);
  if (known) return Promise.resolve(known);
  return new Promise((resolve) => waiting.set(requestId, resolve));
};
