// What a kernel launch costs the host against the size of its parameters
// (the all-reduce's kernels take a table of up to 64 tensors, ~2.7 KB). Empty
// kernels of 16 B to 4 KB of parameters, queued back to back on one stream:
// host µs per launch (enqueue only) and µs per launch until the stream drains,
// median of 7 windows of 5,000 launches; and the host µs per launch of bursts of
// 32 on a drained stream (median of 201 bursts), which no full launch queue
// holds back: long windows fill the queue, and their host time is then the
// GPU's pace. Build and run on a GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/launch_params bench/probes/launch_params.cu && /tmp/launch_params
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "probe_check.cuh"

template <int B>
struct Blob {
  unsigned char b[B];
};

// Reads one byte so the parameter is live; writes only if it is a value never passed.
template <int B>
__global__ void probe(Blob<B> p, int* sink) {
  if (p.b[threadIdx.x % B] == 0xee) *sink = 1;
}

double nowUs() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <int B>
void row(cudaStream_t s, int* sink, int blocks) {
  Blob<B> p{};
  const int n = 5000;
  for (int i = 0; i < 500; ++i) probe<B><<<blocks, 512, 0, s>>>(p, sink);
  CK(cudaStreamSynchronize(s));
  std::vector<double> host, total;
  for (int w = 0; w < 7; ++w) {
    const double t0 = nowUs();
    for (int i = 0; i < n; ++i) probe<B><<<blocks, 512, 0, s>>>(p, sink);
    const double t1 = nowUs();
    CK(cudaStreamSynchronize(s));
    const double t2 = nowUs();
    host.push_back((t1 - t0) / n);
    total.push_back((t2 - t0) / n);
  }
  std::vector<double> burst;
  for (int w = 0; w < 201; ++w) {
    CK(cudaStreamSynchronize(s));
    const double t0 = nowUs();
    for (int i = 0; i < 32; ++i) probe<B><<<blocks, 512, 0, s>>>(p, sink);
    burst.push_back((nowUs() - t0) / 32);
  }
  CK(cudaStreamSynchronize(s));
  CK(cudaGetLastError());
  std::sort(host.begin(), host.end());
  std::sort(total.begin(), total.end());
  std::sort(burst.begin(), burst.end());
  printf("| %d | %d | %.2f | %.2f | %.2f |\n", B, blocks, host[3], total[3], burst[100]);
}

int main() {
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* sink = nullptr;
  CK(cudaMalloc(&sink, sizeof(int)));
  printf("kernel launch cost against parameter bytes, %s\n| param bytes | blocks | host µs / launch | µs / launch to drain | host µs / launch, bursts of 32 |\n| --- | --- | --- | --- | --- |\n",
         prop.name);
  for (int blocks : {1, 128}) {
    row<16>(s, sink, blocks);
    row<128>(s, sink, blocks);
    row<352>(s, sink, blocks);
    row<672>(s, sink, blocks);
    row<1024>(s, sink, blocks);
    row<2048>(s, sink, blocks);
    row<2720>(s, sink, blocks);
    row<4064>(s, sink, blocks);
  }
  CK(cudaFree(sink));
  CK(cudaStreamDestroy(s));
  return 0;
}
