// Keeps managed memory's GPU residency under a budget. Buffers are tracked in
// least-recently-used order; when the resident bytes pass the budget, the
// oldest buffers are advised to live on the host and prefetched there. A
// buffer larger than the whole budget is never made resident: it is advised
// to live on the host with the GPU reading it over the bus, so a table far
// larger than the budget still works (at bus speed).
import {NativeAddon} from '../native/addon';

interface Tracked {
  bytes: number;
  resident: boolean;
  /** Advised to the host and moved there (a buffer larger than the budget). */
  parked?: boolean;
}

export class ManagedResidency {
  private readonly lru = new Map<number, Tracked>();
  private residentBytes = 0;
  private budgetBytes: number | null = null;

  constructor(
    private readonly native: NativeAddon,
    private readonly device: () => number,
  ) {}

  get budget(): number | null {
    return this.budgetBytes;
  }

  get resident(): number {
    return this.residentBytes;
  }

  setBudget(bytes: number | null): void {
    if (bytes !== null && !(Number.isFinite(bytes) && bytes >= 0)) {
      throw new RangeError(`setManagedBudget: bytes must be a non-negative number or null, got ${bytes}`);
    }
    this.budgetBytes = bytes;
    this.enforce(-1);
  }

  /** A kernel is about to use `ptr` on the GPU. */
  touch(ptr: number, bytes: number): void {
    let t = this.lru.get(ptr);
    if (t !== undefined) this.lru.delete(ptr);
    else t = {bytes, resident: false};
    this.lru.set(ptr, t);
    if (this.budgetBytes !== null && bytes > this.budgetBytes) {
      if (t.resident) {
        this.residentBytes -= t.bytes;
        t.resident = false;
      }
      if (!t.parked) {
        // Pages the GPU already holds (say, from initialisation) move out too.
        this.native.managedAdvise(ptr, bytes, -1, this.device());
        this.native.managedPrefetch(ptr, bytes, -1);
        t.parked = true;
      }
      return;
    }
    t.parked = false;
    if (!t.resident) {
      t.resident = true;
      this.residentBytes += bytes;
    }
    this.enforce(ptr);
  }

  forget(ptr: number): void {
    const t = this.lru.get(ptr);
    if (t === undefined) return;
    if (t.resident) this.residentBytes -= t.bytes;
    this.lru.delete(ptr);
  }

  private enforce(keep: number): void {
    if (this.budgetBytes === null) return;
    for (const [ptr, t] of this.lru) {
      if (this.residentBytes <= this.budgetBytes) break;
      if (!t.resident || ptr === keep) continue;
      this.native.managedAdvise(ptr, t.bytes, -1, this.device());
      this.native.managedPrefetch(ptr, t.bytes, -1);
      t.resident = false;
      this.residentBytes -= t.bytes;
    }
  }
}
