// Where a program's time goes, op by op (wm.profileOps): while on, every op of
// the table and the samplers and optimizer steps the bindings call record their
// time. Device bodies are timed by CUDA events on the stream their work goes
// to (the GPU's own time, no waits added); host bodies by the host clock.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wm {

void setOpTiming(bool on);
bool opTimingOn();

struct OpTime {
  std::string name;
  bool device;  // timed on the GPU (events), else on the host clock
  int64_t calls;
  double ms;
};

// The totals since the last take, the slowest first; waits for the GPU's
// queued work first. Clears them.
std::vector<OpTime> takeOpTimes();

// Times its own scope as one call of `name` when timing is on (else nothing).
class OpTimer {
 public:
  OpTimer(const char* name, bool device);
  ~OpTimer();
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

 private:
  const char* name_ = nullptr;
  bool device_ = false;
  void* start_ = nullptr;  // a CUDA event (device) or unused
  int64_t startNs_ = 0;
};

// The device side, in the CUDA runtime (runtime.cu; without_cuda.cc refuses):
// an event recorded on the current stream, whether the GPU has passed it, the
// milliseconds between two, and its return to the pool.
void* recordTimingEvent();
bool timingEventDone(void* event);
float timingEventMs(void* start, void* end);
void releaseTimingEvent(void* event);

}  // namespace wm
