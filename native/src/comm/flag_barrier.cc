#include "wm/flag_barrier.h"

#include <cerrno>
#include <csignal>
#include <thread>

#include "socket_io.h"
#include "wm/status.h"

namespace wm {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

void flagBarrier(uint8_t* base, int ranks, int64_t strideBytes, int rank, uint64_t epoch, int64_t timeoutMs,
                 const int32_t* pids, const std::string& what) {
  auto flagOf = [&](int q) { return reinterpret_cast<uint64_t*>(base + q * strideBytes); };
  __atomic_store_n(flagOf(rank), epoch, __ATOMIC_RELEASE);
  const auto late = net::deadlineIn(timeoutMs);
  for (int q = 0; q < ranks; ++q) {
    for (uint32_t spin = 0; __atomic_load_n(flagOf(q), __ATOMIC_ACQUIRE) < epoch; ++spin) {
      // Spin briefly (peers usually arrive within µs), then yield: ranks may
      // outnumber cores, and a spinning rank would hold up the one it waits for.
      if (spin < 512) {
        cpuRelax();
        continue;
      }
      std::this_thread::yield();
      if ((spin & 1023) != 0) continue;
      if (pids && ::kill(pids[q], 0) != 0 && errno == ESRCH)
        fail(what + ": rank " + std::to_string(q) + " exited or was killed before reaching it");
      if (net::Clock::now() > late) fail(what + ": rank " + std::to_string(q) + " did not reach it within " + std::to_string(timeoutMs) + " ms");
    }
  }
}

}  // namespace wm
