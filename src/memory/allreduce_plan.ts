// A GPU all-reduce call's arguments for the addon, in one Float64Array (the layout is
// native/include/wm/allreduce_plan.h's): one argument to marshal instead of three arrays and five
// values. A plan is made once per tensor count and rewritten in place for each call.
export const PLAN_HEADER = 6;
const ALLOCATES = 1,
  FUSED_SGD = 2;
/** The paths the addon reports, by the number it returns. */
export const ALLREDUCE_PATHS = ['one-shot', 'two-shot', 'nccl'] as const;

export class AllReducePlan {
  readonly data: Float64Array;

  constructor(readonly n: number) {
    this.data = new Float64Array(PLAN_HEADER + 4 * n);
    this.data[0] = n;
  }

  /**
   * wire 0 f32, 1 f16, 2 bf16; algo 0 auto, 1 one-shot, 2 two-shot, 3 NCCL. `allocates`: the addon
   * allocates the outputs and writes their addresses (read them with output()); `lr`: the fused SGD step.
   */
  header(wire: number, mean: boolean, algo: number, allocates: boolean, lr?: number): void {
    const d = this.data;
    d[1] = wire;
    d[2] = mean ? 1 : 0;
    d[3] = algo;
    d[4] = lr ?? 0;
    d[5] = (allocates ? ALLOCATES : 0) | (lr !== undefined ? FUSED_SGD : 0);
  }

  /** Tensor k: its input's address, its output's (0 when the addon allocates it), its element count, its parameter's. */
  tensor(k: number, input: number, output: number, count: number, param = 0): void {
    const d = this.data,
      n = this.n;
    d[PLAN_HEADER + k] = input;
    d[PLAN_HEADER + n + k] = output;
    d[PLAN_HEADER + 2 * n + k] = count;
    d[PLAN_HEADER + 3 * n + k] = param;
  }

  /** Output k's address (after a call that allocated it). */
  output(k: number): number {
    return this.data[PLAN_HEADER + this.n + k];
  }
}
