import { ECHO_EVENT_FORMATS, type EchoEventFormat } from './echo-events.js';
import type { Fault } from './fake-upstream.js';

/**
 * Faults as JSON, for a fake in another process or a Lambda function: bytes (a Bedrock exception
 * frame) travel as base64. An `echo-mid-stream` fault travels with its event named; one whose event
 * is computed in the test cannot travel, and encoding it throws rather than sending something else.
 */
type Encoded = Record<string, unknown> & { kind: string };

const FAULT_KINDS = new Set([
  'delay',
  'status',
  'reset',
  'malformed-sse',
  'stall-mid-stream',
  'cut-mid-stream',
  'slow-stream',
  'echo',
  'echo-mid-stream',
  'error-mid-stream',
]);

export const encodeFault = (fault: Fault): Encoded => {
  if (fault.kind === 'echo-mid-stream' && typeof fault.event !== 'string')
    throw new Error(
      'An echo-mid-stream fault that computes its event in the test: only a fake in this process takes it; name the event format instead.',
    );
  if (fault.kind === 'error-mid-stream' && fault.event instanceof Uint8Array)
    return { ...fault, event: { base64: Buffer.from(fault.event).toString('base64') } };
  return { ...fault };
};

const isCount = (value: unknown, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;

/** One fault from JSON, or undefined when it is not one the fake knows in a shape it can serve. */
export const decodeFault = (value: unknown): Fault | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const fault = value as Record<string, unknown>;
  if (typeof fault.kind !== 'string' || !FAULT_KINDS.has(fault.kind)) return undefined;
  const headersValid =
    fault.headers === undefined ||
    (typeof fault.headers === 'object' &&
      fault.headers !== null &&
      Object.values(fault.headers).every((header) => typeof header === 'string'));
  switch (fault.kind) {
    case 'delay':
      return isCount(fault.ms, 600_000) ? { kind: 'delay', ms: fault.ms } : undefined;
    case 'slow-stream':
      return isCount(fault.gapMs, 60_000) ? { kind: 'slow-stream', gapMs: fault.gapMs } : undefined;
    case 'status':
    case 'echo':
      if (!isCount(fault.status, 599) || fault.status < 100 || !headersValid) return undefined;
      return fault as Fault;
    case 'stall-mid-stream':
    case 'cut-mid-stream':
      return isCount(fault.afterEvents, 10_000) ? { kind: fault.kind, afterEvents: fault.afterEvents } : undefined;
    case 'echo-mid-stream':
      return isCount(fault.afterEvents, 10_000) &&
        typeof fault.event === 'string' &&
        ECHO_EVENT_FORMATS.has(fault.event)
        ? { kind: 'echo-mid-stream', afterEvents: fault.afterEvents, event: fault.event as EchoEventFormat }
        : undefined;
    case 'error-mid-stream': {
      if (!isCount(fault.afterEvents, 10_000)) return undefined;
      const event = fault.event;
      if (typeof event === 'string') return { kind: 'error-mid-stream', afterEvents: fault.afterEvents, event };
      const base64 = (event as { base64?: unknown } | null)?.base64;
      if (typeof base64 !== 'string') return undefined;
      return { kind: 'error-mid-stream', afterEvents: fault.afterEvents, event: Buffer.from(base64, 'base64') };
    }
    default:
      return { kind: fault.kind } as Fault;
  }
};
