// Ranks of one host meeting through shared memory instead of sockets (a few
// µs, where the bootstrap's socket barrier costs tens): each rank adds one to
// an arrival counter (rank 0's slice of a continuous host WholeMemory, at byte
// 64) and waits until it reaches epoch x ranks; each also stores the epoch in
// a 64-bit flag at the start of its own slice, so a wait can name who is
// missing. Both only grow: epochs start at 1 and rise by one per meeting.
#pragma once
#include <cstdint>
#include <string>

namespace wm {

// Bounded: a rank whose process is gone (pids[q], when given) or that has not
// arrived within timeoutMs is named in the error; `what` starts it.
void flagBarrier(uint8_t* base, int ranks, int64_t strideBytes, int rank, uint64_t epoch, int64_t timeoutMs, const int32_t* pids,
                 const std::string& what);

}  // namespace wm
