#include "wm/matmul_precision.h"

#include <atomic>

namespace wm {
namespace {
std::atomic<int> precision{static_cast<int>(MatmulPrecision::Highest)};
}  // namespace

void setMatmulPrecision(MatmulPrecision p) { precision.store(static_cast<int>(p)); }
MatmulPrecision matmulPrecision() { return static_cast<MatmulPrecision>(precision.load()); }

}  // namespace wm
