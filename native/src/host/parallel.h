// Splits [0, n) over the machine's cores for loops big enough to repay
// starting threads; small loops run inline.
#pragma once
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace wm {
namespace host {

template <typename F>
void parallelFor(int64_t n, int64_t minPerThread, F&& body) {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  int64_t threads = std::min<int64_t>(std::min<unsigned>(hw, 16), n / std::max<int64_t>(minPerThread, 1));
  if (threads <= 1) {
    if (n > 0) body(0, n);
    return;
  }
  std::vector<std::thread> pool;
  int64_t chunk = (n + threads - 1) / threads;
  for (int64_t t = 1; t < threads; ++t) {
    int64_t begin = t * chunk, end = std::min(n, begin + chunk);
    if (begin < end) pool.emplace_back([=, &body] { body(begin, end); });
  }
  body(0, std::min(n, chunk));
  for (auto& th : pool) th.join();
}

}  // namespace host
}  // namespace wm
