// Splits [0, n) over the machine's cores for loops big enough to repay it;
// small loops run inline. The threads are a pool started once: starting and
// joining a thread per call cost tens of µs, and a training step on the CPU
// makes dozens of these calls.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/affinity.h"
#include "runtime/local_ranks.h"

namespace wm {
namespace host {

class ThreadPool {
 public:
  // Never destroyed: worker threads may still wait on it while the process exits.
  static ThreadPool& get() {
    static ThreadPool* pool = new ThreadPool(poolThreads() - 1);
    return *pool;
  }

  // Threads for this process, the calling one included: WM_THREADS if set;
  // else the CPUs this process may run on (affinityCpus) shared among
  // the ranks a launcher started on this host (LOCAL_WORLD_SIZE: ours and
  // torchrun's; Open MPI's local size), or all of them once bound to a
  // share of its own (WM_CPU_BIND=cores), at most 16. Four ranks on two cores
  // each running two threads queue behind one another.
  static unsigned poolThreads() {
    if (const char* v = std::getenv("WM_THREADS"); v && *v) {
      char* end = nullptr;
      const long n = std::strtol(v, &end, 10);
      if (*end != '\0' || n < 1 || n > 1024)
        throw std::invalid_argument(std::string("environment: WM_THREADS must be an integer from 1 to 1024, got '") + v + "'");
      return static_cast<unsigned>(n);
    }
    const long cpus = affinityCpus();
    const long local = boundToCoreShare() ? 1 : localWorldSize();
    return static_cast<unsigned>(std::clamp(cpus / local, 1L, 16L));
  }

  unsigned workers() const { return static_cast<unsigned>(threads_.size()); }

  // Runs task(0) .. task(count - 1) and returns when all are done; rethrows the first exception a task
  // threw. Parts are claimed one at a time by the calling thread and by the workers it asks to help, so a
  // worker the system has not yet run (on a small machine, one of its cores busy with the JavaScript
  // engine's own threads) leaves its parts to the caller instead of holding it up. A part's index says
  // what it computes, never which thread runs it. From inside a pool task it runs them all inline (waiting
  // for the pool there could wait for itself).
  void run(int64_t count, const std::function<void(int64_t)>& task) {
    if (count <= 0) return;
    if (insideWorker() || workers() == 0 || count == 1) {
      for (int64_t i = 0; i < count; ++i) task(i);
      return;
    }
    // Shared with the helpers: one that starts after the batch ended finds no part left and never reads task.
    auto batch = std::make_shared<Batch>(count, &task);
    const int64_t helpers = std::min<int64_t>(count - 1, workers());
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int64_t i = 0; i < helpers; ++i) queue_.push_back([batch] { batch->work(); });
      queued_.fetch_add(helpers);
    }
    if (sleepers_.load() > 0) cv_.notify_all();
    batch->work();
    // Parts a helper started finish within microseconds: spin on the count first, then sleep.
    spinUntil([&] { return batch->remaining.load(std::memory_order_acquire) == 0; });
    {
      std::unique_lock<std::mutex> lock(batch->mu);
      batch->done.wait(lock, [&] { return batch->remaining.load() == 0; });
    }
    if (batch->error) std::rethrow_exception(batch->error);
  }

 private:
  struct Batch {
    Batch(int64_t count, const std::function<void(int64_t)>* task) : count(count), task(task), remaining(count) {}
    const int64_t count;
    const std::function<void(int64_t)>* const task;  // valid while remaining > 0: the caller waits for it
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> remaining;
    std::mutex mu;
    std::condition_variable done;
    std::exception_ptr error;
    // Claims and runs parts until none is left.
    void work() {
      for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < count; i = next.fetch_add(1, std::memory_order_relaxed)) {
        try {
          (*task)(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu);
          if (!error) error = std::current_exception();
        }
        // The last part wakes the caller; under the lock, so a caller about to sleep sees the count or the wake.
        std::lock_guard<std::mutex> lock(mu);
        if (remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) done.notify_one();
      }
    }
  };

  explicit ThreadPool(unsigned n) : spinNs_(spinMicros() * 1000) {
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
  }

  // How long an idle thread polls for work before it sleeps, and a caller for its batch's end: waking a
  // sleeping thread costs tens of µs (more in a virtual machine, where it is an interrupt to another vCPU),
  // as much as a small kernel itself, and a training step issues its kernels back to back. WM_SPIN_US
  // (0 to 10,000; default 200) sets it; 0 sleeps at once, for hosts whose cores other work needs.
  static int64_t spinMicros() {
    if (const char* v = std::getenv("WM_SPIN_US"); v && *v) {
      char* end = nullptr;
      const long n = std::strtol(v, &end, 10);
      if (*end != '\0' || n < 0 || n > 10000)
        throw std::invalid_argument(std::string("environment: WM_SPIN_US must be an integer from 0 to 10000, got '") + v + "'");
      return n;
    }
    return 200;
  }

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  // Polls ready() for up to the spin time; true once it holds.
  template <typename Ready>
  bool spinUntil(Ready&& ready) const {
    if (spinNs_ == 0) return ready();
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(spinNs_);
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (ready()) return true;
        pause();
      }
      if (std::chrono::steady_clock::now() >= until) return ready();
    }
  }

  static bool& insideWorker() {
    static thread_local bool inside = false;
    return inside;
  }

  void work() {
    insideWorker() = true;
    for (;;) {
      spinUntil([&] { return queued_.load(std::memory_order_acquire) > 0; });
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (queue_.empty()) {
          sleepers_.fetch_add(1);
          cv_.wait(lock, [&] { return !queue_.empty(); });
          sleepers_.fetch_sub(1);
        }
        job = std::move(queue_.front());
        queue_.pop_front();
        queued_.fetch_sub(1);
      }
      job();
    }
  }

  const int64_t spinNs_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::atomic<int64_t> queued_{0};  // queue_.size(), readable without the lock
  std::atomic<int> sleepers_{0};    // threads waiting on cv_ (read by run: no wake call when none sleep)
  std::vector<std::thread> threads_;
};

template <typename F>
void parallelFor(int64_t n, int64_t minPerThread, F&& body) {
  ThreadPool& pool = ThreadPool::get();
  int64_t threads = std::min<int64_t>(pool.workers() + 1, n / std::max<int64_t>(minPerThread, 1));
  if (threads <= 1) {
    if (n > 0) body(0, n);
    return;
  }
  const int64_t chunk = (n + threads - 1) / threads;
  pool.run(threads, [&](int64_t t) {
    const int64_t begin = t * chunk, end = std::min(n, begin + chunk);
    if (begin < end) body(begin, end);
  });
}

// The first i in [0, n) where found(i) holds, or n: parts searched in parallel, each stopping at its
// first hit or once an earlier part has one (found may run on positions past the answer, never on all).
template <typename F>
int64_t parallelFirst(int64_t n, int64_t minPerThread, F&& found) {
  std::atomic<int64_t> first{n};
  parallelFor(n, minPerThread, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e && i < first.load(std::memory_order_relaxed); ++i)
      if (found(i)) {
        int64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
  });
  return first.load();
}

// parallelFor over rows whose costs differ (CSR rows: a power-law graph's hubs):
// [0, n) cut where the running cost `prefix(i)` (non-decreasing, prefix(0) = 0)
// crosses equal shares, a part per thread (the caller runs only the first part
// of a batch, so more parts than threads would queue behind the workers).
template <typename Prefix, typename F>
void parallelForByCost(int64_t n, int64_t minCostPerPart, Prefix&& prefix, F&& body) {
  ThreadPool& pool = ThreadPool::get();
  const int64_t total = n > 0 ? static_cast<int64_t>(prefix(n)) : 0;
  const int64_t parts = std::min<int64_t>(pool.workers() + 1, std::max<int64_t>(1, total / std::max<int64_t>(minCostPerPart, 1)));
  if (parts <= 1 || n <= 1) {
    if (n > 0) body(0, n);
    return;
  }
  // Part t starts at the first row whose prefix reaches t * total / parts.
  std::vector<int64_t> cut(static_cast<size_t>(parts) + 1, n);
  cut[0] = 0;
  for (int64_t t = 1; t < parts; ++t) {
    const int64_t goal = total / parts * t + (total % parts) * t / parts;
    int64_t lo = cut[static_cast<size_t>(t - 1)], hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<int64_t>(prefix(mid)) < goal)
        lo = mid + 1;
      else
        hi = mid;
    }
    cut[static_cast<size_t>(t)] = lo;
  }
  pool.run(parts, [&](int64_t t) {
    const int64_t begin = cut[static_cast<size_t>(t)], end = cut[static_cast<size_t>(t) + 1];
    if (begin < end) body(begin, end);
  });
}

}  // namespace host
}  // namespace wm
