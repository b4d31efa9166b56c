import type { Fault, FakeState, ReceivedRequest } from './fake-upstream.js';
import { memoryFakeState } from './fake-upstream.js';
import type { WireSpec } from './fake-wires.js';

/**
 * What a fake host keeps per session (one test's fake): the wires it speaks, the faults still to
 * serve, what it received. In memory for a host that is one process; in a table for a Lambda function,
 * whose instances must all see the same session.
 */
export interface FakeHostStore {
  createSession(id: string, wires: readonly WireSpec[]): Promise<void>;
  wiresOf(id: string): Promise<readonly WireSpec[] | undefined>;
  stateOf(id: string): FakeState;
  addFaults(id: string, faults: readonly Fault[]): Promise<void>;
  clearFaults(id: string): Promise<void>;
  received(id: string): Promise<readonly ReceivedRequest[]>;
  abortedByClient(id: string): Promise<number>;
  deleteSession(id: string): Promise<void>;
}

/** Sessions in this process's memory: for a host that is a single process. */
export const memoryHostStore = (): FakeHostStore => {
  const sessions = new Map<string, { wires: readonly WireSpec[]; state: ReturnType<typeof memoryFakeState> }>();
  const session = (id: string) => {
    const found = sessions.get(id);
    if (!found) throw new Error(`no fake session ${id}`);
    return found;
  };
  return {
    createSession: async (id, wires) => {
      sessions.set(id, { wires, state: memoryFakeState() });
    },
    wiresOf: async (id) => sessions.get(id)?.wires,
    stateOf: (id) => session(id).state,
    addFaults: async (id, faults) => {
      session(id).state.faults.push(...faults);
    },
    clearFaults: async (id) => {
      session(id).state.faults.splice(0);
    },
    received: async (id) => session(id).state.received,
    abortedByClient: async (id) => session(id).state.aborted(),
    deleteSession: async (id) => {
      sessions.delete(id);
    },
  };
};
