// The embedding domain's argument readers (declared in wm/op_registry.h): a
// table object, index arrays of either width, optimizer state and parameters.
// They check what they read with the same words as every other reader.
#include <cmath>
#include <string>

#include "wm/embedding.h"
#include "wm/op_registry.h"

namespace wm {

TableRef OpArgs::rawTable(size_t i, const char* name) const { reject(i, name, "must be an embedding table"); }

void* OpArgs::rawHostMemory(size_t i, const char* name, int64_t*) const { reject(i, name, "must be a typed array or null"); }

TableRef OpArgs::table(size_t i, const char* name) const {
  if (kind(i) != Kind::Other) reject(i, name, "must be an embedding table {ptr | array | memory, rows, dim, storage}");
  TableRef t = rawTable(i, name);
  if (t.rows < 0 || t.dim < 0) reject(i, name, "must have non-negative rows and dim");
  if (t.storage != StorageType::F32 && t.storage != StorageType::F16 && t.storage != StorageType::BF16)
    reject(i, name, "storage must be 0 (float32), 1 (float16) or 2 (bfloat16)");
  return t;
}

TableRef OpArgs::cacheBackingTable(size_t i, const char* name) const {
  const TableRef t = table(i, name);
  if (t.cached()) reject(i, name, "must be the table behind the cache, without a cache of its own");
  if (t.chunked != nullptr || (t.ptr == 0 && t.rows * t.dim > 0)) reject(i, name, "must be one contiguous table (a row cache needs one)");
  return t;
}

IndexType OpArgs::indexType(size_t i, const char* name) const {
  const int64_t v = count(i, name);
  if (v > 1) reject(i, name, "must be 0 (int32) or 1 (int64)");
  return static_cast<IndexType>(v);
}

const void* OpArgs::indices(size_t i, const char* name, IndexType type, int64_t n) const {
  const Element want = type == IndexType::I32 ? Element::Int32 : Element::BigInt64;
  const char* what = type == IndexType::I32 ? "an Int32Array (indexType 0)" : "a BigInt64Array (indexType 1)";
  if (kind(i) != Kind::Typed || rawTyped(i).element != want) reject(i, name, std::string("must be ") + what);
  const Typed t = rawTyped(i);
  if (t.length < n) reject(i, name, "holds " + std::to_string(t.length) + " entries, needs " + std::to_string(n));
  return t.data;
}

float* OpArgs::state(size_t i, const char* name, int64_t need) const {
  const Kind k = kind(i);
  if (k == Kind::Other) {
    int64_t bytes = 0;
    void* base = rawHostMemory(i, name, &bytes);
    if (bytes < need * 4) reject(i, name, "holds " + std::to_string(bytes / 4) + " floats, needs " + std::to_string(need));
    return static_cast<float*>(base);
  }
  return floatsOrNull(i, name, need);
}

SparseOptimizer OpArgs::optimizer(size_t i, const char* name) const {
  const int64_t v = count(i, name);
  if (v > static_cast<int64_t>(SparseOptimizer::RowAdaGrad))
    reject(i, name, "must be 0 (sgd), 1 (adam), 2 (adagrad), 3 (rmsprop) or 4 (row-wise adagrad)");
  return static_cast<SparseOptimizer>(v);
}

OptimizerParams OpArgs::optimizerParams(size_t i, const char* name) const {
  if (kind(i) != Kind::Other)
    reject(i, name, "must be an object {lr, beta1, beta2, rho, eps, weightDecay, biasCorrection1, biasCorrection2}");
  auto field = [&](const char* key) {
    const double v = rawField(i, key);
    if (!std::isfinite(v)) reject(i, name, std::string(".") + key + " must be a finite number");
    return static_cast<float>(v);
  };
  OptimizerParams p;
  p.lr = field("lr");
  p.beta1 = field("beta1");
  p.beta2 = field("beta2");
  p.rho = field("rho");
  p.eps = field("eps");
  p.weightDecay = field("weightDecay");
  p.biasCorrection1 = field("biasCorrection1");
  p.biasCorrection2 = field("biasCorrection2");
  return p;
}

}  // namespace wm
