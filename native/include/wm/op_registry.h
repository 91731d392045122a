// The table of native ops a front end can call by name. Each op registers a
// device body (in its .cu file) and a host body (in its host .cc file) that
// read their arguments through OpArgs; the front end (native/addon) exports
// one function per name and picks the body by where the data lives: typed
// arrays run the host body, device addresses (numbers) the device body.
// A new op is its two implementation files; no header, binding or stub.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wm/dtype.h"
#include "wm/status.h"
#include "wm/window2d.h"

namespace wm {

enum class Place { Device, Host };

// A graph in native memory (wm/native_graph.h), which graph ops take in place of a CSR's arrays.
namespace host {
class NativeGraph;
}

// The embedding domain's argument types (wm/embedding.h); its readers are defined there.
struct TableRef;
struct OptimizerParams;
enum class IndexType : int;
enum class SparseOptimizer : int;

// An op's positional arguments. The raw readers are the front end's; the
// checked readers below are the one place arguments are validated, and every
// failure names the op, the argument's position and name, and the rule broken.
class OpArgs {
 public:
  enum class Kind { Missing, Null, Number, Boolean, Array, Typed, Other };
  enum class Element { Other, Int8, Uint8, Uint16, Int32, Float32, Float64, BigInt64 };
  struct Typed {
    void* data;
    int64_t length;  // elements
    Element element;
  };

  explicit OpArgs(const char* op) : op_(op) {}
  virtual ~OpArgs() = default;
  const char* op() const { return op_; }

  virtual size_t size() const = 0;
  virtual Kind kind(size_t i) const = 0;
  virtual double rawNumber(size_t i) const = 0;
  virtual bool rawTruthy(size_t i) const = 0;
  virtual std::vector<double> rawArray(size_t i) const = 0;
  virtual Typed rawTyped(size_t i) const = 0;
  // A number-valued property of an object argument (NaN when absent or not a number).
  virtual double rawField(size_t i, const char* key) const = 0;
  // The front end's handles: an embedding table object, and continuous host memory behind a handle
  // (its base and bytes). The defaults reject: a front end without handles has none to give.
  virtual TableRef rawTable(size_t i, const char* name) const;
  virtual void* rawHostMemory(size_t i, const char* name, int64_t* bytes) const;
  virtual const host::NativeGraph* rawGraph(size_t i, const char* name) const;

  std::string where(size_t i, const char* name) const;
  [[noreturn]] void reject(size_t i, const char* name, const std::string& rule) const;

  // A non-negative integer (sizes, counts, positions).
  int64_t count(size_t i, const char* name) const;
  // Any integer that fits int64 (seeds' halves, signed parameters).
  int64_t integer(size_t i, const char* name) const;
  double number(size_t i, const char* name) const;
  // JavaScript truthiness; a missing argument is `otherwise`.
  bool flag(size_t i, const char* name, bool otherwise = false) const;
  DType dtype(size_t i, const char* name) const;
  std::vector<int64_t> dims(size_t i, const char* name) const;
  // A device address (a number; 0 where the op allows "none").
  uint64_t address(size_t i, const char* name) const;
  // A host typed array of `elementBytes`-byte elements holding at least `need` of them.
  void* bytes(size_t i, const char* name, int64_t need, int elementBytes) const;
  // bytes() for a tensor of `dt` (its element width); int32 arrays for int32 and bool promoted tensors alike.
  void* tensor(size_t i, const char* name, DType dt, int64_t need) const;
  float* floats(size_t i, const char* name, int64_t need) const;
  int32_t* ints(size_t i, const char* name, int64_t need) const;
  // floats()/ints(), or nullptr when the argument is null, undefined, 0 or missing.
  float* floatsOrNull(size_t i, const char* name, int64_t need) const;
  // A graph in native memory (a NativeGraph object), read in place: graphs past what a typed array holds.
  const host::NativeGraph& graph(size_t i, const char* name) const;
  // A host CSR in Int32Arrays: rowPtr [rows + 1] from 0, non-decreasing; colIdx entries in [0, cols). Returns nnz.
  int64_t csr(size_t rowPtrArg, size_t colIdxArg, int64_t rows, int64_t cols) const;
  // The 14 numbers of a wm::Window2D.
  Window2D window(size_t i, const char* name) const;
  // A typed array's element count.
  int64_t length(size_t i, const char* name) const;

  // The embedding domain's readers (native/src/embedding/embedding_args.cc).
  TableRef table(size_t i, const char* name) const;
  // The contiguous table behind a row cache (one without a cache of its own).
  TableRef cacheBackingTable(size_t i, const char* name) const;
  IndexType indexType(size_t i, const char* name) const;
  // Host indices: an Int32Array (int32) or BigInt64Array (int64) holding at least n entries.
  const void* indices(size_t i, const char* name, IndexType type, int64_t n) const;
  // Optimizer state on the host: null (none), a Float32Array, or continuous host WholeMemory.
  float* state(size_t i, const char* name, int64_t need) const;
  SparseOptimizer optimizer(size_t i, const char* name) const;
  OptimizerParams optimizerParams(size_t i, const char* name) const;

  bool present(size_t i) const {
    const Kind k = kind(i);
    return k != Kind::Missing && k != Kind::Null;
  }

  // The op's result, for ops that return a number (a count, or the first bad position).
  void returns(double v) const {
    result_ = v;
    hasResult_ = true;
  }
  bool hasResult() const { return hasResult_; }
  double result() const { return result_; }

 private:
  const char* op_;
  mutable double result_ = 0;
  mutable bool hasResult_ = false;
};

// Elements a strided view over `shape` reaches: 1 + the largest offset (0 when shape has a 0).
int64_t stridedExtent(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

using OpBody = void (*)(const OpArgs&);

struct OpEntry {
  std::string name;
  OpBody device = nullptr;
  OpBody host = nullptr;
};

// Every registered op, sorted by name (filled before main by the registrations).
const std::vector<OpEntry>& registeredOps();

struct OpRegistration {
  OpRegistration(const char* name, Place place, OpBody body);
};

}  // namespace wm

// WM_OP(topK, Device, a) { ... a.count(4, "rows") ... } registers the device body of "topK".
#define WM_OP(NAME, PLACE, ARGS)                                                                                             \
  static void wm_op_##NAME##_##PLACE(const ::wm::OpArgs& ARGS);                                                              \
  static const ::wm::OpRegistration wm_op_registration_##NAME##_##PLACE(#NAME, ::wm::Place::PLACE, &wm_op_##NAME##_##PLACE); \
  static void wm_op_##NAME##_##PLACE(const ::wm::OpArgs& ARGS)
