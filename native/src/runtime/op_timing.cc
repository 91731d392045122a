#include "wm/op_timing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <map>
#include <mutex>

#include "wm/runtime.h"

namespace wm {
namespace {

struct Pending {
  const char* name;
  void* start;
  void* end;
};

struct Timing {
  std::atomic<bool> on{false};
  std::mutex mu;
  std::deque<Pending> pending;  // device calls whose events are read at the next take
  std::map<std::pair<std::string, bool>, std::pair<int64_t, double>> totals;
};

Timing& timing() {
  static Timing* t = new Timing();  // never destroyed: ops may run during exit
  return *t;
}

// A long profiled call would hold an event pair per GPU op until the take: past this many, the calls the
// GPU has finished are added up as they go.
constexpr size_t kDrainAt = 4096;

void addLocked(Timing& t, const char* name, bool device, double ms) {
  auto& total = t.totals[{name, device}];
  total.first += 1;
  total.second += ms;
}

// A GPU call the stream has passed, added up (unless `add` is false); its events go back to the pool
// whether or not they read.
void settleLocked(Timing& t, const Pending& p, bool add = true) {
  struct Release {
    const Pending& p;
    ~Release() {
      releaseTimingEvent(p.start);
      releaseTimingEvent(p.end);
    }
  } release{p};
  if (add) addLocked(t, p.name, true, timingEventMs(p.start, p.end));
}

void drainFinishedLocked(Timing& t) {
  while (!t.pending.empty() && timingEventDone(t.pending.front().end)) {
    const Pending p = t.pending.front();
    t.pending.pop_front();
    settleLocked(t, p);
  }
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void setOpTiming(bool on) { timing().on.store(on); }
bool opTimingOn() { return timing().on.load(); }

OpTimer::OpTimer(const char* name, bool device) {
  if (!opTimingOn()) return;
  name_ = name;
  device_ = device;
  if (device)
    start_ = recordTimingEvent();
  else
    startNs_ = nowNs();
}

OpTimer::~OpTimer() {
  if (name_ == nullptr) return;
  Timing& t = timing();
  if (device_) {
    void* end = nullptr;
    try {
      end = recordTimingEvent();
    } catch (...) {
      releaseTimingEvent(start_);  // the op's own error is what the caller sees
      return;
    }
    std::lock_guard<std::mutex> lock(t.mu);
    t.pending.push_back({name_, start_, end});
    if (t.pending.size() >= kDrainAt) try {
        drainFinishedLocked(t);
      } catch (...) {
        // Not from a destructor: a call whose events cannot be read is left out; a CUDA error that
        // sticks is raised by the next op.
      }
    return;
  }
  const double ms = static_cast<double>(nowNs() - startNs_) / 1e6;
  std::lock_guard<std::mutex> lock(t.mu);
  addLocked(t, name_, false, ms);
}

std::vector<OpTime> takeOpTimes() {
  Timing& t = timing();
  std::deque<Pending> pending;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    pending.swap(t.pending);
  }
  if (!pending.empty()) synchronize();
  std::lock_guard<std::mutex> lock(t.mu);
  std::exception_ptr failed;
  for (const Pending& p : pending) {
    try {
      settleLocked(t, p, !failed);  // after a failed read, every event still goes back to the pool
    } catch (...) {
      failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  std::vector<OpTime> out;
  for (const auto& [key, v] : t.totals) out.push_back({key.first, key.second, v.first, v.second});
  t.totals.clear();
  std::sort(out.begin(), out.end(), [](const OpTime& a, const OpTime& b) { return a.ms > b.ms; });
  return out;
}

}  // namespace wm
