// What the modules beneath a communicator use of it — the memory it allocates, its all-reduce, the
// exchange of distributed rows —: its place in the group and its collectives. A communicator is one;
// naming this instead of the class keeps those modules from importing the module that imports them.
import type {NativeCommunicator} from '../native/addon';

export interface Group {
  readonly rank: number;
  readonly size: number;
  /** Bound on every collective, in ms. */
  readonly timeoutMs: number;
  readonly nativeComm: NativeCommunicator;
  barrier(): void;
  /** Every rank's bytes, in rank order; `what` names the collective in errors. */
  allgather(mine: Uint8Array, what?: string): Uint8Array[];
  allgatherJson<T>(mine: T, what?: string): T[];
  /** Stops tracking an object that freed itself (a WholeMemory tensor). */
  forget(t: object): void;
  /** Frees the group (a communicator made for one tensor goes with it). */
  destroy(): void;
}
