// The op table and OpArgs' checked readers (wm/op_registry.h).
#include "wm/op_registry.h"

#include <algorithm>
#include <cmath>

namespace wm {

namespace {
std::vector<OpEntry>& table() {
  static std::vector<OpEntry> ops;
  return ops;
}

const char* elementName(int bytes) {
  switch (bytes) {
    case 1:
      return "a Uint8Array";
    case 2:
      return "a Uint16Array";
    case 4:
      return "an array of 4-byte elements";
    case 8:
      return "a Float64Array";
    default:
      return "a typed array";
  }
}

int elementBytes(OpArgs::Element e) {
  switch (e) {
    case OpArgs::Element::Int8:
    case OpArgs::Element::Uint8:
      return 1;
    case OpArgs::Element::Uint16:
      return 2;
    case OpArgs::Element::Int32:
    case OpArgs::Element::Float32:
      return 4;
    case OpArgs::Element::Float64:
      return 8;
    default:
      return 0;
  }
}
}  // namespace

OpRegistration::OpRegistration(const char* name, Place place, OpBody body) {
  auto& ops = table();
  auto it = std::lower_bound(ops.begin(), ops.end(), name, [](const OpEntry& e, const char* n) { return e.name < n; });
  if (it == ops.end() || it->name != name) it = ops.insert(it, OpEntry{name});
  (place == Place::Device ? it->device : it->host) = body;
}

const std::vector<OpEntry>& registeredOps() { return table(); }

int64_t stridedExtent(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t last = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0) return 0;
    const int64_t s = k < strides.size() ? strides[k] : 0;
    last += (shape[k] - 1) * (s < 0 ? -s : s);
  }
  return last + 1;
}

std::string OpArgs::where(size_t i, const char* name) const {
  return std::string(op_) + ": argument " + std::to_string(i) + " (" + name + ")";
}

void OpArgs::reject(size_t i, const char* name, const std::string& rule) const { fail(where(i, name) + " " + rule); }

double OpArgs::number(size_t i, const char* name) const {
  if (kind(i) != Kind::Number) reject(i, name, "must be a number");
  return rawNumber(i);
}

int64_t OpArgs::integer(size_t i, const char* name) const {
  const double v = number(i, name);
  if (!(std::fabs(v) <= 9007199254740992.0) || v != std::floor(v)) reject(i, name, "must be an integer, got " + std::to_string(v));
  return static_cast<int64_t>(v);
}

int64_t OpArgs::count(size_t i, const char* name) const {
  const int64_t v = integer(i, name);
  if (v < 0) reject(i, name, "must not be negative, got " + std::to_string(v));
  return v;
}

bool OpArgs::flag(size_t i, const char* name, bool otherwise) const {
  (void)name;
  return kind(i) == Kind::Missing ? otherwise : rawTruthy(i);
}

DType OpArgs::dtype(size_t i, const char* name) const {
  const int64_t v = integer(i, name);
  if (v < 0 || v > 2) reject(i, name, "must be 0 (float32), 1 (int32) or 2 (bool)");
  return static_cast<DType>(v);
}

std::vector<int64_t> OpArgs::dims(size_t i, const char* name) const {
  if (kind(i) != Kind::Array) reject(i, name, "must be an array of integers");
  const std::vector<double> raw = rawArray(i);
  std::vector<int64_t> out(raw.size());
  for (size_t k = 0; k < raw.size(); ++k) {
    if (!(std::fabs(raw[k]) <= 9007199254740992.0) || raw[k] != std::floor(raw[k]))
      reject(i, name, "must hold integers; entry " + std::to_string(k) + " is not one");
    out[k] = static_cast<int64_t>(raw[k]);
  }
  return out;
}

uint64_t OpArgs::address(size_t i, const char* name) const {
  if (kind(i) != Kind::Number) reject(i, name, "must be a device address (a number) like the op's other buffers");
  const double v = rawNumber(i);
  if (!(v >= 0) || v != std::floor(v)) reject(i, name, "is not a device address");
  return static_cast<uint64_t>(v);
}

void* OpArgs::bytes(size_t i, const char* name, int64_t need, int elementBytes_) const {
  if (kind(i) != Kind::Typed) reject(i, name, std::string("must be ") + elementName(elementBytes_) + " like the op's other buffers");
  const Typed t = rawTyped(i);
  if (elementBytes(t.element) != elementBytes_) reject(i, name, std::string("must be ") + elementName(elementBytes_));
  if (t.length < need) reject(i, name, "holds " + std::to_string(t.length) + " elements, needs " + std::to_string(need));
  return t.data;
}

void* OpArgs::tensor(size_t i, const char* name, DType dt, int64_t need) const {
  return bytes(i, name, need, static_cast<int>(dtypeSize(dt)));
}

namespace {
// A typed array of exactly `element` holding at least `need`, read once.
void* exactly(const OpArgs& a, size_t i, const char* name, int64_t need, OpArgs::Element element, const char* what) {
  if (a.kind(i) != OpArgs::Kind::Typed) a.reject(i, name, std::string("must be ") + what);
  const OpArgs::Typed t = a.rawTyped(i);
  if (t.element != element) a.reject(i, name, std::string("must be ") + what);
  if (t.length < need) a.reject(i, name, "holds " + std::to_string(t.length) + " elements, needs " + std::to_string(need));
  return t.data;
}
}  // namespace

float* OpArgs::floats(size_t i, const char* name, int64_t need) const {
  return static_cast<float*>(exactly(*this, i, name, need, Element::Float32, "a Float32Array"));
}

int32_t* OpArgs::ints(size_t i, const char* name, int64_t need) const {
  return static_cast<int32_t*>(exactly(*this, i, name, need, Element::Int32, "an Int32Array"));
}

const host::NativeGraph* OpArgs::rawGraph(size_t i, const char* name) const { reject(i, name, "must be a typed array"); }

const host::NativeGraph& OpArgs::graph(size_t i, const char* name) const {
  if (kind(i) != Kind::Other) reject(i, name, "must be a native graph (a NativeGraph)");
  const host::NativeGraph* g = rawGraph(i, name);
  if (!g) reject(i, name, "must be a native graph (a NativeGraph)");
  return *g;
}

float* OpArgs::floatsOrNull(size_t i, const char* name, int64_t need) const {
  const Kind k = kind(i);
  if (k == Kind::Missing || k == Kind::Null || (k == Kind::Number && rawNumber(i) == 0)) return nullptr;
  return floats(i, name, need);
}

int64_t OpArgs::csr(size_t rowPtrArg, size_t colIdxArg, int64_t rows, int64_t cols) const {
  const int32_t* rowPtr = ints(rowPtrArg, "rowPtr", rows + 1);
  if (rowPtr[0] != 0) reject(rowPtrArg, "rowPtr", "must start at 0");
  for (int64_t r = 0; r < rows; ++r)
    if (rowPtr[r + 1] < rowPtr[r]) reject(rowPtrArg, "rowPtr", "decreases at row " + std::to_string(r));
  const int64_t nnz = rowPtr[rows];
  const int32_t* colIdx = ints(colIdxArg, "colIdx", nnz);
  for (int64_t e = 0; e < nnz; ++e)
    if (colIdx[e] < 0 || colIdx[e] >= cols)
      reject(colIdxArg, "colIdx",
             "entry " + std::to_string(e) + " = " + std::to_string(colIdx[e]) + " is outside [0, " + std::to_string(cols) + ")");
  return nnz;
}

Window2D OpArgs::window(size_t i, const char* name) const { return window2dFrom(dims(i, name), where(i, name).c_str()); }

int64_t OpArgs::length(size_t i, const char* name) const {
  if (kind(i) != Kind::Typed) reject(i, name, "must be a typed array");
  return rawTyped(i).length;
}

}  // namespace wm
