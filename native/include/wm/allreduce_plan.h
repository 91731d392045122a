// A GPU all-reduce call's arguments as JavaScript hands them over: one Float64Array, so the call
// costs one N-API argument instead of three arrays and five values (on a 4 x H200 host the addon
// call took about 2 µs more than the same all-reduce queued from C++, most of a small call's margin).
// Layout: [n, wire, mean, algo, lr, flags], then n input addresses, n output addresses, n element
// counts and n parameter addresses (fused SGD; 0 without it). flags: kPlanAllocates, the addon
// allocates each output from the device pool and writes its address into the output slot;
// kPlanFusedSgd, out = param - lr * reduced.
#pragma once
#include <cstdint>
#include <vector>

#include "wm/peer_allreduce.h"

namespace wm {

constexpr int64_t kPlanHeader = 6;
constexpr int kPlanAllocates = 1;
constexpr int kPlanFusedSgd = 2;

struct AllReducePlan {
  int64_t n = 0;
  std::vector<uint64_t> ins, outs, params;  // params empty without the fused SGD step
  std::vector<int64_t> counts;
  WireType wire = WireType::F32;
  bool mean = false;
  int algo = 0;  // 0 auto, 1 one-shot, 2 two-shot, 3 NCCL
  float lr = 0;
  bool allocates = false;
};

// Checks and reads a plan of `length` doubles; every failure names allReduceDevice's plan, the
// position and the rule it broke. Output slots are read only when the caller allocated them.
AllReducePlan readAllReducePlan(const double* plan, int64_t length);

// The plan's slot for output k (the addon writes the addresses it allocated there).
inline int64_t planOutputSlot(int64_t n, int64_t k) { return kPlanHeader + n + k; }

}  // namespace wm
