#include "wm/allreduce_plan.h"

#include <cmath>
#include <string>

#include "wm/status.h"

namespace wm {
namespace {

[[noreturn]] void bad(int64_t at, const std::string& rule) { fail("allReduceDevice: plan[" + std::to_string(at) + "] " + rule); }

// An integer in [lo, hi] at plan[at].
int64_t whole(const double* plan, int64_t at, double lo, double hi, const char* what) {
  const double v = plan[at];
  if (!(std::isfinite(v) && v == std::floor(v) && v >= lo && v <= hi))
    bad(at, std::string("(") + what + ") must be an integer in [" + std::to_string(static_cast<int64_t>(lo)) + ", " +
                std::to_string(static_cast<int64_t>(hi)) + "], got " + std::to_string(v));
  return static_cast<int64_t>(v);
}

constexpr double kMaxAddress = 9007199254740991.0;  // 2^53 - 1: what a double holds exactly

}  // namespace

AllReducePlan readAllReducePlan(const double* plan, int64_t length) {
  if (plan == nullptr || length < kPlanHeader)
    fail("allReduceDevice: the plan must hold at least " + std::to_string(kPlanHeader) + " numbers, got " + std::to_string(length));
  AllReducePlan p;
  p.n = whole(plan, 0, 0, 1 << 24, "tensors");
  if (length != kPlanHeader + 4 * p.n)
    fail("allReduceDevice: a plan of " + std::to_string(p.n) + " tensors holds " + std::to_string(kPlanHeader + 4 * p.n) +
         " numbers, got " + std::to_string(length));
  p.wire = static_cast<WireType>(whole(plan, 1, 0, 2, "wire: 0 float32, 1 float16, 2 bfloat16"));
  p.mean = whole(plan, 2, 0, 1, "mean") == 1;
  p.algo = static_cast<int>(whole(plan, 3, 0, 3, "algo: 0 auto, 1 one-shot, 2 two-shot, 3 NCCL"));
  const int flags = static_cast<int>(whole(plan, 5, 0, kPlanAllocates | kPlanFusedSgd, "flags"));
  p.allocates = (flags & kPlanAllocates) != 0;
  if (flags & kPlanFusedSgd) {
    if (!std::isfinite(plan[4])) bad(4, "(lr) must be a finite number, got " + std::to_string(plan[4]));
    p.lr = static_cast<float>(plan[4]);
  }
  const int64_t n = p.n;
  p.ins.resize(n);
  p.outs.resize(n);
  p.counts.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    p.ins[k] = static_cast<uint64_t>(whole(plan, kPlanHeader + k, 1, kMaxAddress, "an input's device address"));
    if (!p.allocates) p.outs[k] = static_cast<uint64_t>(whole(plan, planOutputSlot(n, k), 1, kMaxAddress, "an output's device address"));
    p.counts[k] = whole(plan, kPlanHeader + 2 * n + k, 1, kMaxAddress, "an element count");
  }
  if (flags & kPlanFusedSgd) {
    p.params.resize(n);
    for (int64_t k = 0; k < n; ++k)
      p.params[k] = static_cast<uint64_t>(whole(plan, kPlanHeader + 3 * n + k, 1, kMaxAddress, "a parameter's device address"));
  }
  return p;
}

}  // namespace wm
