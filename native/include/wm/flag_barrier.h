// Ranks of one host meeting through shared memory instead of sockets: each
// rank has a 64-bit flag at the start of its slice of a continuous host
// WholeMemory; a meeting is a release store of the epoch, then acquire loads
// until every rank has stored it (a few µs, where the bootstrap's socket
// barrier costs tens). Flags only grow, so a rank may be a meeting ahead.
#pragma once
#include <cstdint>
#include <string>

namespace wm {

// Bounded: a rank whose process is gone (pids[q], when given) or that has not
// arrived within timeoutMs is named in the error; `what` starts it.
void flagBarrier(uint8_t* base, int ranks, int64_t strideBytes, int rank, uint64_t epoch, int64_t timeoutMs,
                 const int32_t* pids, const std::string& what);

}  // namespace wm
