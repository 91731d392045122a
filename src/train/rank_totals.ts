// An epoch's figures over the ranks training one model: each rank's counts summed (this rank's alone without a group).
import type {Communicator} from '../memory/communicator';

export function sumOverRanks<T extends Record<string, number>>(comm: Communicator | undefined, mine: T, what: string): T {
  if (!comm || comm.size <= 1) return mine;
  const each = comm.allgatherJson(mine, what);
  return Object.fromEntries(Object.keys(mine).map((k) => [k, each.reduce((a, e) => a + e[k], 0)])) as T;
}
