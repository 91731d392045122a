#include "wm/flag_barrier.h"

#include <cerrno>
#include <climits>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "collectives/socket_io.h"
#include "runtime/affinity.h"
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

// A counter's low 32 bits (little-endian: its first word) are a futex word.
// Not private: the counter lives in memory shared between processes.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the futex word is a counter's low half");

void sleepOn(uint64_t* word, uint64_t seen) {
#ifdef __linux__
  timespec ts{0, 200 * 1000};  // woken early by the store; the bound keeps the liveness checks going
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, static_cast<uint32_t>(seen), &ts, nullptr, 0);
#else
  (void)word;
  (void)seen;
  std::this_thread::yield();
#endif
}

void wakeSleepers(uint64_t* word) {
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
#else
  (void)word;
#endif
}

}  // namespace

void flagBarrier(uint8_t* base, int ranks, int64_t strideBytes, int rank, uint64_t epoch, int64_t timeoutMs, const int32_t* pids,
                 const std::string& what) {
  auto flagOf = [&](int q) { return reinterpret_cast<uint64_t*>(base + q * strideBytes); };
  // Arrivals of every meeting so far, on its own cache line of rank 0's page:
  // waiters sleep on this one word and the last rank to arrive wakes them
  // all once (waiting on each rank's flag in turn woke each waiter once per
  // rank: 4 ranks on 2 cores, 1 MiB, 0.94-1.8 ms per call against 0.98-1.06
  // through the bootstrap's sockets).
  auto* arrived = reinterpret_cast<uint64_t*>(base + 64);
  const uint64_t all = epoch * static_cast<uint64_t>(ranks);
  // The flag only names who is missing; the counter's release sequence
  // carries every rank's writes to the waiters.
  __atomic_store_n(flagOf(rank), epoch, __ATOMIC_RELAXED);
  if (__atomic_add_fetch(arrived, 1, __ATOMIC_ACQ_REL) == all) {
    wakeSleepers(arrived);
    return;
  }
  const auto late = net::deadlineIn(timeoutMs);
  // Spin a while (peers usually arrive within µs), then sleep until woken.
  // With a CPU for every rank, spinning up to 100 µs keeps the futex's wake-up
  // (tens of µs on the CPU box) out of most meetings: 2 ranks on 2 cores, 1 KiB,
  // 4.2-4.4 µs per call against 39.5-40.7 spinning 5 µs. With more ranks than
  // CPUs a spinner takes the CPU of the rank it waits for: 4 ranks on 2 cores,
  // 146-161 µs against 78 spinning 5 µs.
  static const int64_t forcedUs = [] {
    const char* v = std::getenv("WM_BARRIER_SPIN_US");
    return v && *v ? std::atoll(v) : -1;
  }();
  static const int cpus = affinityCpus();
  const int64_t spinUs = forcedUs >= 0 ? forcedUs : ranks <= cpus ? 100 : 5;
  const auto spinUntil = net::Clock::now() + std::chrono::microseconds(spinUs);
  bool spinning = true;
  uint64_t seen;
  for (uint32_t spin = 0; (seen = __atomic_load_n(arrived, __ATOMIC_ACQUIRE)) < all; ++spin) {
    if (spinning) {
      cpuRelax();
      if ((spin & 63) == 63) spinning = net::Clock::now() < spinUntil;
      continue;
    }
    sleepOn(arrived, seen);
    int missing = 0;
    while (missing < ranks && __atomic_load_n(flagOf(missing), __ATOMIC_RELAXED) >= epoch) ++missing;
    if (missing == ranks) continue;
    if (pids && ::kill(pids[missing], 0) != 0 && errno == ESRCH)
      fail(what + ": rank " + std::to_string(missing) + " exited or was killed before reaching it");
    if (net::Clock::now() > late)
      fail(what + ": rank " + std::to_string(missing) + " did not reach it within " + std::to_string(timeoutMs) + " ms");
  }
}

}  // namespace wm
