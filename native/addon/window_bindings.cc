// N-API bindings of the 2-D window kernels (depthwise convolution, pools and
// their gradients). Each takes its buffers either as device addresses
// (numbers: the CUDA kernels) or as typed arrays (the CPU core; their sizes
// are checked against the geometry first, so a wrong one is an error, not a
// stray read). The geometry is the 14 numbers of wm::Window2D.
#include <napi.h>

#include <string>
#include <vector>

#include "napi_util.h"
#include "wm/host_ops.h"
#include "wm/ops.h"
#include "wm/window2d.h"

namespace {

using wmnapi::guarded;

struct Args {
  const Napi::CallbackInfo& info;
  const char* fn;

  std::string where(size_t i, const char* name) const { return std::string(fn) + ": argument " + std::to_string(i) + " (" + name + ")"; }

  bool onDevice(size_t first) const { return info[first].IsNumber(); }

  uint64_t ptr(size_t i, const char* name) const {
    if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), where(i, name) + " must be a device address like the others");
    return static_cast<uint64_t>(info[i].As<Napi::Number>().Int64Value());
  }

  // A typed array of `elementBytes`-byte elements holding at least `need`.
  void* host(size_t i, const char* name, int64_t need, size_t elementBytes = 4) const {
    if (!info[i].IsTypedArray()) throw Napi::TypeError::New(info.Env(), where(i, name) + " must be a typed array like the others");
    auto t = info[i].As<Napi::TypedArray>();
    if (t.ElementSize() != elementBytes) throw Napi::TypeError::New(info.Env(), where(i, name) + " has the wrong element type");
    if (static_cast<int64_t>(t.ElementLength()) < need)
      throw Napi::RangeError::New(info.Env(), where(i, name) + " holds " + std::to_string(t.ElementLength()) +
                                                   " elements, the geometry needs " + std::to_string(need));
    return wmnapi::typedBytes(t);
  }

  int64_t integer(size_t i, const char* name) const {
    if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), where(i, name) + " must be a number");
    return info[i].As<Napi::Number>().Int64Value();
  }

  // Arguments 0-2 (the depthwise kernels' two inputs and output) as device addresses, or as float32 host
  // arrays holding at least `sizes`, checked in argument order; then onDev or onHost with them.
  template <typename D, typename H>
  void threeBuffers(const char* const (&names)[3], const int64_t (&sizes)[3], D onDev, H onHost) const {
    if (onDevice(0)) {
      const uint64_t p0 = ptr(0, names[0]), p1 = ptr(1, names[1]), p2 = ptr(2, names[2]);
      onDev(p0, p1, p2);
    } else {
      auto* h0 = static_cast<float*>(host(0, names[0], sizes[0]));
      auto* h1 = static_cast<float*>(host(1, names[1], sizes[1]));
      auto* h2 = static_cast<float*>(host(2, names[2], sizes[2]));
      onHost(h0, h1, h2);
    }
  }

  // An input gradient's dy [batch, dyH, dyW, ...] must hold the output's pixels.
  void dyCovers(const wm::Window2D& g, int64_t dyH, int64_t dyW) const {
    if (dyH < g.outH || dyW < g.outW)
      throw Napi::RangeError::New(info.Env(), std::string(fn) + ": dy (" + std::to_string(dyH) + " x " + std::to_string(dyW) +
                                                  ") must cover the output (" + std::to_string(g.outH) + " x " + std::to_string(g.outW) + ")");
  }

  wm::Window2D geometry(size_t i) const {
    if (!info[i].IsArray()) throw Napi::TypeError::New(info.Env(), where(i, "geometry") + " must be an array of 14 numbers");
    auto a = info[i].As<Napi::Array>();
    std::vector<int64_t> v(a.Length());
    for (uint32_t k = 0; k < a.Length(); ++k) v[k] = a.Get(k).As<Napi::Number>().Int64Value();
    return wm::window2dFrom(v, (std::string(fn) + " geometry").c_str());
  }
};

int64_t inSize(const wm::Window2D& g) { return g.batch * g.inH * g.inW * g.chans; }
int64_t outSize(const wm::Window2D& g) { return g.batch * g.outH * g.outW * g.chans; }

// depthwiseConv2d(x, w, y, geometry, mult)
Napi::Value DepthwiseConv2d(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a{info, "depthwiseConv2d"};
    const auto g = a.geometry(3);
    const int64_t mult = a.integer(4, "mult");
    a.threeBuffers({"x", "w", "y"}, {inSize(g), g.fH * g.fW * g.chans * mult, outSize(g) * mult},
                   [&](uint64_t x, uint64_t w, uint64_t y) { wm::depthwiseConv2d(x, w, y, g, mult); },
                   [&](float* x, float* w, float* y) { wm::host::depthwiseConv2d(x, w, y, g, mult); });
    return info.Env().Undefined();
  });
}

// depthwiseConv2dInputGrad(dy, w, dx, geometry, mult, dyH, dyW)
Napi::Value DepthwiseConv2dInputGrad(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a{info, "depthwiseConv2dInputGrad"};
    const auto g = a.geometry(3);
    const int64_t mult = a.integer(4, "mult"), dyH = a.integer(5, "dyH"), dyW = a.integer(6, "dyW");
    a.dyCovers(g, dyH, dyW);
    a.threeBuffers({"dy", "w", "dx"}, {g.batch * dyH * dyW * g.chans * mult, g.fH * g.fW * g.chans * mult, inSize(g)},
                   [&](uint64_t dy, uint64_t w, uint64_t dx) { wm::depthwiseConv2dInputGrad(dy, w, dx, g, mult, dyH, dyW); },
                   [&](float* dy, float* w, float* dx) { wm::host::depthwiseConv2dInputGrad(dy, w, dx, g, mult, dyH, dyW); });
    return info.Env().Undefined();
  });
}

// depthwiseConv2dFilterGrad(x, dy, dw, geometry, mult)
Napi::Value DepthwiseConv2dFilterGrad(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a{info, "depthwiseConv2dFilterGrad"};
    const auto g = a.geometry(3);
    const int64_t mult = a.integer(4, "mult");
    a.threeBuffers({"x", "dy", "dw"}, {inSize(g), outSize(g) * mult, g.fH * g.fW * g.chans * mult},
                   [&](uint64_t x, uint64_t dy, uint64_t dw) { wm::depthwiseConv2dFilterGrad(x, dy, dw, g, mult); },
                   [&](float* x, float* dy, float* dw) { wm::host::depthwiseConv2dFilterGrad(x, dy, dw, g, mult); });
    return info.Env().Undefined();
  });
}

// conv2dForward(x, w, y, geometry, outC), conv2dFilterGrad(x, dy, dw,
// geometry, outC): device addresses only (the CPU core has no such kernel).
template <void (*F)(uint64_t, uint64_t, uint64_t, const wm::Window2D&, int64_t)>
Napi::Value Conv2dDevice(const Napi::CallbackInfo& info, const char* fn, const char* n0, const char* n1, const char* n2) {
  return guarded(info.Env(), [&] {
    Args a{info, fn};
    const auto g = a.geometry(3);
    const int64_t outC = a.integer(4, "outC");
    const uint64_t p0 = a.ptr(0, n0), p1 = a.ptr(1, n1), p2 = a.ptr(2, n2);
    F(p0, p1, p2, g, outC);
    return info.Env().Undefined();
  });
}
Napi::Value Conv2dForward(const Napi::CallbackInfo& info) {
  return Conv2dDevice<wm::conv2dForward>(info, "conv2dForward", "x", "w", "y");
}
Napi::Value Conv2dFilterGrad(const Napi::CallbackInfo& info) {
  return Conv2dDevice<wm::conv2dFilterGrad>(info, "conv2dFilterGrad", "x", "dy", "dw");
}

// conv2dInputGrad(dy, w, dx, geometry, outC, dyH, dyW): device addresses only.
Napi::Value Conv2dInputGrad(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a{info, "conv2dInputGrad"};
    const auto g = a.geometry(3);
    const int64_t outC = a.integer(4, "outC"), dyH = a.integer(5, "dyH"), dyW = a.integer(6, "dyW");
    a.dyCovers(g, dyH, dyW);
    const uint64_t dy = a.ptr(0, "dy"), w = a.ptr(1, "w"), dx = a.ptr(2, "dx");
    wm::conv2dInputGrad(dy, w, dx, g, outC, dyH, dyW);
    return info.Env().Undefined();
  });
}

wm::PoolOp poolOp(const Args& a, size_t i) {
  const int64_t op = a.integer(i, "op");
  if (op < 0 || op > static_cast<int64_t>(wm::PoolOp::Avg))
    throw Napi::RangeError::New(a.info.Env(), a.where(i, "op") + " must be 0 (max), 1 (argmax) or 2 (avg)");
  return static_cast<wm::PoolOp>(op);
}

// pool2d(op, x, y, geometry): y is int32 for ArgMax.
Napi::Value Pool2d(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a{info, "pool2d"};
    const auto op = poolOp(a, 0);
    const auto g = a.geometry(3);
    if (a.onDevice(1)) {
      const uint64_t x = a.ptr(1, "x"), y = a.ptr(2, "y");
      wm::pool2d(op, x, y, g);
    } else {
      auto* x = static_cast<float*>(a.host(1, "x", inSize(g)));
      wm::host::pool2d(op, x, a.host(2, "y", outSize(g)), g);
    }
    return info.Env().Undefined();
  });
}

// pool2dGrad(op, dy, argmax, dx, geometry): argmax (int32 from pool2d's
// ArgMax) is read for Max only; pass 0 / null for Avg.
Napi::Value Pool2dGrad(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&] {
    Args a{info, "pool2dGrad"};
    const auto op = poolOp(a, 0);
    if (op == wm::PoolOp::ArgMax) throw Napi::RangeError::New(info.Env(), "pool2dGrad: argument 0 (op) must be max or avg");
    const auto g = a.geometry(4);
    const bool max = op == wm::PoolOp::Max;
    if (a.onDevice(1)) {
      const uint64_t dy = a.ptr(1, "dy"), argmax = max ? a.ptr(2, "argmax") : 0, dx = a.ptr(3, "dx");
      wm::pool2dGrad(op, dy, argmax, dx, g);
    } else {
      auto* dy = static_cast<float*>(a.host(1, "dy", outSize(g)));
      auto* argmax = max ? static_cast<int*>(a.host(2, "argmax", outSize(g))) : nullptr;
      auto* dx = static_cast<float*>(a.host(3, "dx", inSize(g)));
      wm::host::pool2dGrad(op, dy, argmax, dx, g);
    }
    return info.Env().Undefined();
  });
}

}  // namespace

void InitWindows(Napi::Env env, Napi::Object exports) {
  exports.Set("depthwiseConv2d", Napi::Function::New(env, DepthwiseConv2d, "depthwiseConv2d"));
  exports.Set("depthwiseConv2dInputGrad", Napi::Function::New(env, DepthwiseConv2dInputGrad, "depthwiseConv2dInputGrad"));
  exports.Set("depthwiseConv2dFilterGrad", Napi::Function::New(env, DepthwiseConv2dFilterGrad, "depthwiseConv2dFilterGrad"));
  exports.Set("conv2dForward", Napi::Function::New(env, Conv2dForward, "conv2dForward"));
  exports.Set("conv2dInputGrad", Napi::Function::New(env, Conv2dInputGrad, "conv2dInputGrad"));
  exports.Set("conv2dFilterGrad", Napi::Function::New(env, Conv2dFilterGrad, "conv2dFilterGrad"));
  exports.Set("pool2d", Napi::Function::New(env, Pool2d, "pool2d"));
  exports.Set("pool2dGrad", Napi::Function::New(env, Pool2dGrad, "pool2dGrad"));
}
