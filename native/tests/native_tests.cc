// C++ tests of the core's parts that JavaScript reaches only indirectly: the argument reader, the
// bootstrap's framing and authentication, the slice layout, which ranks share a GPU, which CPUs a GPU
// rank is bound to, the all-reduce's plan, and edge cases of host kernels. Built by CMake (target
// wm_native_tests) and run by ctest from `npm test`; no GPU needed.
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collectives/socket_io.h"
#include "graph/place_entries.h"
#include "kernels/host_ops.h"
#include "runtime/gpu_sharing.h"
#include "wm/allreduce_plan.h"
#include "wm/bootstrap.h"
#include "wm/cpu_binding.h"
#include "wm/embedding.h"
#include "wm/graph_ops.h"
#include "wm/hmac_sha256.h"
#include "wm/native_graph.h"
#include "wm/op_registry.h"
#include "wm/page_array.h"
#include "wm/slice_layout.h"

namespace {

int failures = 0;
int checks = 0;

#define EXPECT(cond)                                                                   \
  do {                                                                                 \
    ++checks;                                                                          \
    if (!(cond)) {                                                                     \
      ++failures;                                                                      \
      std::cerr << __FILE__ << ":" << __LINE__ << ": expected " << #cond << std::endl; \
    }                                                                                  \
  } while (0)

// f must throw an exception whose message contains every one of `parts`.
void expectThrows(const std::function<void()>& f, const std::vector<std::string>& parts, int line) {
  ++checks;
  try {
    f();
  } catch (const std::exception& e) {
    const std::string m = e.what();
    for (const std::string& p : parts)
      if (m.find(p) == std::string::npos) {
        ++failures;
        std::cerr << __FILE__ << ":" << line << ": message \"" << m << "\" lacks \"" << p << "\"" << std::endl;
      }
    return;
  }
  ++failures;
  std::cerr << __FILE__ << ":" << line << ": expected an exception" << std::endl;
}
#define EXPECT_THROWS(f, ...) expectThrows(f, {__VA_ARGS__}, __LINE__)

// ---- the argument reader -------------------------------------------------------------------------
struct Value {
  wm::OpArgs::Kind kind = wm::OpArgs::Kind::Missing;
  double number = 0;
  std::vector<double> array;
  wm::OpArgs::Typed typed{nullptr, 0, wm::OpArgs::Element::Other};
  std::map<std::string, double> fields;  // an object's number properties
};
Value num(double v) { return Value{wm::OpArgs::Kind::Number, v, {}, {}}; }
Value object(std::map<std::string, double> fields) { return Value{wm::OpArgs::Kind::Other, 0, {}, {}, std::move(fields)}; }
Value arr(std::vector<double> v) { return Value{wm::OpArgs::Kind::Array, 0, std::move(v), {}}; }
template <typename T>
Value typed(std::vector<T>& v, wm::OpArgs::Element e) {
  return Value{wm::OpArgs::Kind::Typed, 0, {}, {v.data(), static_cast<int64_t>(v.size()), e}};
}
Value null() { return Value{wm::OpArgs::Kind::Null, 0, {}, {}}; }

class FakeArgs : public wm::OpArgs {
 public:
  FakeArgs(const char* op, std::vector<Value> v) : wm::OpArgs(op), v_(std::move(v)) {}
  size_t size() const override { return v_.size(); }
  Kind kind(size_t i) const override { return i < v_.size() ? v_[i].kind : Kind::Missing; }
  double rawNumber(size_t i) const override { return v_[i].number; }
  bool rawTruthy(size_t i) const override { return v_[i].kind == Kind::Number ? v_[i].number != 0 : v_[i].kind != Kind::Null; }
  std::vector<double> rawArray(size_t i) const override { return v_[i].array; }
  Typed rawTyped(size_t i) const override { return v_[i].typed; }
  double rawField(size_t i, const char* key) const override {
    const auto it = v_[i].fields.find(key);
    return it == v_[i].fields.end() ? NAN : it->second;
  }

 private:
  std::vector<Value> v_;
};

void testArgumentReader() {
  std::vector<float> f5(5, 1.f);
  std::vector<int32_t> i5(5, 0);
  FakeArgs a("topK", {num(0), typed(f5, wm::OpArgs::Element::Float32), num(-1), num(2.5), arr({2, 3}), arr({2, 0.5}),
                      typed(i5, wm::OpArgs::Element::Int32), null()});
  EXPECT(a.count(0, "dtype") == 0);
  EXPECT(a.dtype(0, "dtype") == wm::DType::F32);
  EXPECT_THROWS([&] { a.count(2, "rows"); }, "topK", "argument 2 (rows)", "must not be negative");
  EXPECT_THROWS([&] { a.count(3, "k"); }, "argument 3 (k)", "must be an integer");
  EXPECT(a.integer(2, "seed") == -1);
  EXPECT(a.number(3, "alpha") == 2.5);
  EXPECT_THROWS([&] { a.number(4, "alpha"); }, "argument 4 (alpha)", "must be a number");
  EXPECT((a.dims(4, "shape") == std::vector<int64_t>{2, 3}));
  EXPECT_THROWS([&] { a.dims(5, "shape"); }, "argument 5 (shape)", "entry 1");
  EXPECT(a.floats(1, "x", 5) == f5.data());
  EXPECT_THROWS([&] { a.floats(1, "x", 6); }, "argument 1 (x)", "holds 5 elements, needs 6");
  EXPECT_THROWS([&] { a.floats(6, "x", 1); }, "argument 6 (x)");
  EXPECT(a.floatsOrNull(7, "weight", 3) == nullptr);
  EXPECT(a.floatsOrNull(8, "weight", 3) == nullptr);  // missing
  EXPECT(a.flag(8, "log", true) == true);
  EXPECT_THROWS(
      [&] {
        FakeArgs b("reduce", {num(3)});
        b.dtype(0, "dtypeIn");
      },
      "reduce", "argument 0 (dtypeIn)", "must be 0 (float32)");
  EXPECT_THROWS(
      [&] {
        FakeArgs b("gather", {num(1.5)});
        b.address(0, "x");
      },
      "argument 0 (x)", "not a device address");

  // The embedding readers: index arrays of the declared width, optimizer state, parameters, tables.
  std::vector<int32_t> i32{1, 2, 3};
  std::vector<int64_t> i64{1, 2, 3};
  std::vector<float> st(12, 0.f);
  const std::map<std::string, double> params{{"lr", 0.1},   {"beta1", 0.9},     {"beta2", 0.999},       {"rho", 0.9},
                                             {"eps", 1e-8}, {"weightDecay", 0}, {"biasCorrection1", 1}, {"biasCorrection2", 1}};
  std::map<std::string, double> noLr = params;
  noLr.erase("lr");
  FakeArgs e("embeddingApply", {object({{"rows", 4}, {"dim", 3}, {"storage", 0}}), typed(st, wm::OpArgs::Element::Float32), null(),
                                typed(i32, wm::OpArgs::Element::Int32), num(0), num(3), typed(i64, wm::OpArgs::Element::BigInt64), num(5),
                                object(params), object(noLr), num(2)});
  EXPECT(e.indexType(4, "indexType") == wm::IndexType::I32);
  EXPECT_THROWS([&] { e.indexType(7, "indexType"); }, "argument 7 (indexType)", "must be 0 (int32) or 1 (int64)");
  EXPECT(e.indices(3, "indices", wm::IndexType::I32, 3) == i32.data());
  EXPECT(e.indices(6, "indices", wm::IndexType::I64, 3) == i64.data());
  EXPECT_THROWS([&] { e.indices(6, "indices", wm::IndexType::I32, 3); }, "argument 6 (indices)", "must be an Int32Array (indexType 0)");
  EXPECT_THROWS([&] { e.indices(3, "indices", wm::IndexType::I32, 4); }, "argument 3 (indices)", "holds 3 entries, needs 4");
  EXPECT(e.state(1, "state0", 12) == st.data());
  EXPECT(e.state(2, "state1", 12) == nullptr);
  EXPECT_THROWS([&] { e.state(1, "state0", 13); }, "argument 1 (state0)", "needs 13");
  EXPECT_THROWS([&] { e.state(0, "state0", 1); }, "argument 0 (state0)", "must be a typed array or null");
  EXPECT(e.optimizer(10, "opt") == wm::SparseOptimizer::AdaGrad);
  EXPECT_THROWS([&] { e.optimizer(7, "opt"); }, "argument 7 (opt)", "must be 0 (sgd)", "4 (row-wise adagrad)");
  EXPECT(wm::stateWidth(wm::SparseOptimizer::RowAdaGrad, 3) == 1 && wm::stateWidth(wm::SparseOptimizer::Adam, 3) == 3);
  EXPECT(e.optimizerParams(8, "params").lr == 0.1f);
  EXPECT_THROWS([&] { e.optimizerParams(9, "params"); }, "argument 9 (params)", ".lr must be a finite number");
  EXPECT_THROWS([&] { e.optimizerParams(5, "params"); }, "argument 5 (params)", "must be an object");
  // A front end without handles has no tables to give.
  EXPECT_THROWS([&] { e.table(0, "table"); }, "argument 0 (table)", "must be an embedding table");
  EXPECT_THROWS([&] { e.table(4, "table"); }, "argument 4 (table)", "must be an embedding table {ptr");

  // A host CSR: rowPtr from 0, non-decreasing; colIdx in [0, cols).
  std::vector<int32_t> rowPtr{0, 2, 3}, colIdx{1, 0, 1}, badRows{0, 2, 1}, badCols{1, 0, 7};
  FakeArgs g("csrSpmm", {typed(rowPtr, wm::OpArgs::Element::Int32), typed(colIdx, wm::OpArgs::Element::Int32)});
  EXPECT(g.csr(0, 1, 2, 2) == 3);
  FakeArgs g2("csrSpmm", {typed(badRows, wm::OpArgs::Element::Int32), typed(colIdx, wm::OpArgs::Element::Int32)});
  EXPECT_THROWS([&] { g2.csr(0, 1, 2, 2); }, "argument 0 (rowPtr)", "decreases at row 1");
  FakeArgs g3("csrSpmm", {typed(rowPtr, wm::OpArgs::Element::Int32), typed(badCols, wm::OpArgs::Element::Int32)});
  EXPECT_THROWS([&] { g3.csr(0, 1, 2, 2); }, "argument 1 (colIdx)");
}

// ---- framing and authentication --------------------------------------------------------------------
std::string hex(const wm::auth::Digest& d) { return wm::auth::toHex(std::string(reinterpret_cast<const char*>(d.data()), d.size())); }

void testAuthentication() {
  // FIPS 180-4's "abc" and RFC 4231's test case 2.
  EXPECT(hex(wm::auth::sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT(hex(wm::auth::sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT(hex(wm::auth::hmacSha256("Jefe", "what do ya want for nothing?")) ==
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // RFC 4231 test case 6: a key longer than the block is hashed first.
  EXPECT(hex(wm::auth::hmacSha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")) ==
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT(wm::auth::equalDigests("abcd", "abcd"));
  EXPECT(!wm::auth::equalDigests("abcd", "abce"));
  EXPECT(!wm::auth::equalDigests("abcd", "abc"));
  EXPECT(wm::auth::fromHex("00ff10", "id") == std::string("\x00\xff\x10", 3));
  EXPECT_THROWS([] { wm::auth::fromHex("abc", "the group secret"); }, "the group secret");
  EXPECT_THROWS([] { wm::auth::fromHex("zz", "the group secret"); }, "the group secret");
  EXPECT(wm::auth::randomBytes(16) != wm::auth::randomBytes(16));
}

void testFraming() {
  namespace net = wm::net;
  int sv[2];
  EXPECT(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  std::string got;
  EXPECT(net::sendFrame(sv[0], "hello", net::deadlineIn(1000)) == net::IoResult::Ok);
  EXPECT(net::recvFrame(sv[1], got, net::deadlineIn(1000)) == net::IoResult::Ok && got == "hello");
  EXPECT(net::sendFrame(sv[0], "", net::deadlineIn(1000)) == net::IoResult::Ok);
  EXPECT(net::recvFrame(sv[1], got, net::deadlineIn(1000)) == net::IoResult::Ok && got.empty());
  // A frame announced past the bound is refused before its bytes are read.
  EXPECT(net::sendFrame(sv[0], std::string(5000, 'x'), net::deadlineIn(1000)) == net::IoResult::Ok);
  EXPECT(net::recvFrame(sv[1], got, net::deadlineIn(1000), net::kMaxHandshakeBytes) == net::IoResult::Malformed);
  ::close(sv[0]);
  ::close(sv[1]);
  // Nothing arrives: the wait ends at its deadline.
  EXPECT(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  EXPECT(net::recvFrame(sv[1], got, net::deadlineIn(50)) == net::IoResult::TimedOut);
  // The peer leaves in the middle of a frame: Closed, not a hang.
  const uint64_t len = 100;
  EXPECT(::write(sv[0], &len, sizeof len) == static_cast<ssize_t>(sizeof len));
  EXPECT(::write(sv[0], "abc", 3) == 3);
  ::close(sv[0]);
  EXPECT(net::recvFrame(sv[1], got, net::deadlineIn(1000)) == net::IoResult::Closed);
  ::close(sv[1]);
}

void testBootstrap() {
  // Two ranks in two threads meet, allgather in rank order.
  {
    const std::string id = wm::bootstrapUniqueId("127.0.0.1", 0);
    std::vector<std::string> seen1;
    std::string error1;
    std::thread peer([&] {
      try {
        wm::Bootstrap b(id, 1, 2, 5000);
        seen1 = b.allgather("from 1", "test");
      } catch (const std::exception& e) {
        error1 = e.what();
      }
    });
    wm::Bootstrap b(id, 0, 2, 5000);
    const std::vector<std::string> seen0 = b.allgather("from 0", "test");
    peer.join();
    EXPECT(error1.empty());
    EXPECT((seen0 == std::vector<std::string>{"from 0", "from 1"}));
    EXPECT(seen0 == seen1);
  }
  // A stranger with the right address but another secret is dropped: rank 0 waits for rank 1 until its
  // deadline and names it; the stranger fails too.
  {
    const std::string id = wm::bootstrapUniqueId("127.0.0.1", 0);
    const std::string forged = id.substr(0, id.rfind(':') + 1) + std::string(64, 'a');
    std::string strangerError;
    std::thread stranger([&] {
      try {
        wm::Bootstrap b(forged, 1, 2, 1500);
      } catch (const std::exception& e) {
        strangerError = e.what();
      }
    });
    EXPECT_THROWS([&] { wm::Bootstrap b(id, 0, 2, 1500); }, "rank(s) 1 did not join");
    stranger.join();
    EXPECT(!strangerError.empty());
  }
  EXPECT_THROWS([] { wm::Bootstrap b(wm::bootstrapUniqueId("127.0.0.1", 0), 0, wm::kMaxRanks + 1, 100); }, "size must be in [1, 65536]");
  EXPECT_THROWS([] { wm::bootstrapUniqueId("127.0.0.1", 0, "", "abcd"); }, "at least 16 bytes");
}

// ---- the slice layout ------------------------------------------------------------------------------
void testSliceLayout() {
  wm::SliceLayout l = wm::sliceLayout(10, 4, 1, 3, 4096, "malloc");
  EXPECT(l.rowsPerPart == 1024 && l.sliceBytes == 4096);
  l = wm::sliceLayout(0, 4, 1, 2, 4096, "malloc");
  EXPECT(l.rowsPerPart == 1024);
  l = wm::sliceLayout(1, 6, 3, 1, 4096, "malloc");  // 2048 rows make whole pages; a multiple of 3 too
  EXPECT(l.rowsPerPart == 6144 && l.sliceBytes % 4096 == 0);
  std::mt19937_64 rng(7);
  for (int t = 0; t < 2000; ++t) {
    const int64_t rows = static_cast<int64_t>(rng() % 100000), rowBytes = 1 + static_cast<int64_t>(rng() % 1000);
    const int64_t gran = 1 + static_cast<int64_t>(rng() % 17), parts = 1 + static_cast<int64_t>(rng() % 9);
    const int64_t unit = int64_t{1} << (rng() % 22);
    l = wm::sliceLayout(rows, rowBytes, gran, parts, unit, "malloc");
    EXPECT(l.rowsPerPart * parts >= rows);
    EXPECT(l.rowsPerPart % gran == 0);
    EXPECT(l.sliceBytes == l.rowsPerPart * rowBytes && l.sliceBytes % unit == 0);
    // the smallest such: one step fewer would not hold the rows (or would be empty)
    const int64_t step = [&] {
      for (int64_t s = gran;; s += gran)
        if ((s * rowBytes) % unit == 0) return s;
    }();
    EXPECT(l.rowsPerPart == step || (l.rowsPerPart - step) * parts < rows);
  }
  EXPECT_THROWS([] { wm::sliceLayout(-1, 4, 1, 1, 4096, "malloc"); }, "malloc: rows must not be negative");
  EXPECT_THROWS([] { wm::sliceLayout(1, 0, 1, 1, 4096, "embedding"); }, "embedding: a row must have at least one byte");
  EXPECT_THROWS([] { wm::sliceLayout(1, 4, 0, 1, 4096, "malloc"); }, "minGranularity");
}

// ---- ranks sharing a GPU ---------------------------------------------------------------------------
void testGpuSharing() {
  using Pair = std::pair<int, int>;
  using G = std::vector<wm::RankGpu>;
  auto one = [](std::vector<int> d) {  // ranks on one host
    G g;
    for (int x : d) g.push_back({x, "h"});
    return g;
  };
  EXPECT(!wm::sharedGpuRanks(G{}));
  EXPECT(!wm::sharedGpuRanks(one({3})));
  EXPECT(!wm::sharedGpuRanks(one({0, 1, 2, 3})));
  EXPECT(wm::sharedGpuRanks(one({0, 0})) == Pair(0, 1));
  EXPECT(wm::sharedGpuRanks(one({2, 0, 1, 0, 2})) == Pair(0, 4));  // the first rank that shares, then its first partner
  EXPECT(wm::sharedGpuRanks(one({5, 1, 7, 1})) == Pair(1, 3));
  // Over hosts: each host numbers its GPUs from 0; the same number on two hosts is two GPUs.
  EXPECT(!wm::sharedGpuRanks(G{{0, "a"}, {0, "b"}}));
  EXPECT(!wm::sharedGpuRanks(G{{0, "a"}, {1, "a"}, {0, "b"}, {1, "b"}}));
  EXPECT(wm::sharedGpuRanks(G{{0, "a"}, {1, "a"}, {0, "b"}, {1, "a"}}) == Pair(1, 3));
  EXPECT(wm::sharedGpuRanks(G{{2, "b"}, {2, "a"}, {2, "b"}}) == Pair(0, 2));
  const char* saved = std::getenv("WM_SHARE_GPU");
  const std::string keep = saved ? saved : "";
  for (const auto& [value, allowed] : std::vector<std::pair<const char*, bool>>{{"1", true}, {"0", false}, {"11", false}, {"", false}}) {
    setenv("WM_SHARE_GPU", value, 1);
    EXPECT(wm::gpuSharingAllowed() == allowed);
  }
  unsetenv("WM_SHARE_GPU");
  EXPECT(!wm::gpuSharingAllowed());
  if (saved) setenv("WM_SHARE_GPU", keep.c_str(), 1);
}

// ---- which CPUs a GPU rank is bound to ---------------------------------------------------------------
// A fake sysfs: two sockets of 8 cores with two threads each (CPU c and c + 16 are siblings), socket 0
// local to the GPU at 0000:18:00.0 and socket 1 to the one at 0000:9a:00.0.
void testCpuBinding() {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("wm-sysfs-" + std::to_string(getpid()));
  auto put = [&](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text << "\n";
  };
  put(root / "bus/pci/devices/0000:18:00.0/local_cpulist", "0-7,16-23");
  put(root / "bus/pci/devices/0000:9a:00.0/local_cpulist", "8-15,24-31");
  for (int c = 0; c < 32; ++c) {
    const fs::path dir = root / ("devices/system/cpu/cpu" + std::to_string(c)) / "topology";
    put(dir / "physical_package_id", std::to_string((c % 16) / 8));
    put(dir / "core_id", std::to_string(c % 8));
  }
  using V = std::vector<int>;
  V all;
  for (int c = 0; c < 32; ++c) all.push_back(c);

  EXPECT(wm::parseCpuList("0-3,8,10-11", "t") == V({0, 1, 2, 3, 8, 10, 11}));
  EXPECT(wm::parseCpuList("5,1-2,2", "t") == V({1, 2, 5}));
  EXPECT(wm::parseCpuList("", "t").empty());
  EXPECT_THROWS([] { wm::parseCpuList("3-1", "local_cpulist"); }, "local_cpulist", "'3-1'", "CPU list");
  EXPECT_THROWS([] { wm::parseCpuList("0-x", "t"); }, "'0-x'");
  EXPECT_THROWS([] { wm::parseCpuList("1-", "t"); }, "'1-'");
  EXPECT(wm::formatCpuList({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11");
  EXPECT(wm::formatCpuList({}).empty());

  const auto cores = wm::physicalCores({0, 1, 16, 17, 8}, root.string());
  EXPECT(cores == std::vector<V>({{0, 16}, {1, 17}, {8}}));
  EXPECT(wm::physicalCores({0, 1}, (root / "missing").string()) == std::vector<V>({{0}, {1}}));  // no topology: one core each

  const std::vector<V> eight = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
  EXPECT(wm::coreShare(eight, 0, 3) == V({0, 1, 2}));
  EXPECT(wm::coreShare(eight, 1, 3) == V({3, 4, 5}));
  EXPECT(wm::coreShare(eight, 2, 3) == V({6, 7}));
  EXPECT(wm::coreShare({{0, 2}, {1, 3}}, 2, 3) == V({0, 2}));  // fewer cores than shares: core k % cores
  EXPECT(wm::coreShare({}, 0, 1).empty());
  EXPECT_THROWS([&] { wm::coreShare(eight, 3, 3); }, "share 3 of 3");

  using wm::CpuBindMode;
  const std::vector<std::string> buses = {"0000:18:00.0", "00000000:18:00.0", "0000:9A:00.0", "0000:9a:00.0"};
  EXPECT(wm::planCpuBinding(CpuBindMode::None, all, buses, 0, root.string()).cpus.empty());
  const auto numa = wm::planCpuBinding(CpuBindMode::Numa, all, buses, 2, root.string());
  EXPECT(numa.cpus == wm::parseCpuList("8-15,24-31", "t"));
  EXPECT(numa.describe.find("8-15,24-31") != std::string::npos);
  // Ranks 0 and 1 split socket 0's cores, ranks 2 and 3 socket 1's; each core with its sibling.
  EXPECT(wm::planCpuBinding(CpuBindMode::Cores, all, buses, 0, root.string()).cpus == wm::parseCpuList("0-3,16-19", "t"));
  const auto second = wm::planCpuBinding(CpuBindMode::Cores, all, buses, 1, root.string());
  EXPECT(second.cpus == wm::parseCpuList("4-7,20-23", "t"));
  EXPECT(second.describe.find("share 2 of 2 of the 8 cores") != std::string::npos);
  EXPECT(wm::planCpuBinding(CpuBindMode::Cores, all, buses, 3, root.string()).cpus == wm::parseCpuList("12-15,28-31", "t"));
  // Only the CPUs this process may use; a GPU sysfs knows nothing of shares all of them.
  EXPECT(wm::planCpuBinding(CpuBindMode::Numa, {2, 3, 9}, buses, 0, root.string()).cpus == V({2, 3}));
  EXPECT(wm::planCpuBinding(CpuBindMode::Cores, {0, 1, 2, 3}, {"0000:01:00.0", "0000:02:00.0"}, 1, root.string()).cpus == V({2, 3}));
  EXPECT_THROWS([&] { wm::planCpuBinding(CpuBindMode::Cores, all, buses, 4, root.string()); }, "local rank 4");

  const char* saved = std::getenv("WM_CPU_BIND");
  const std::string keep = saved ? saved : "";
  for (const auto& [value, mode] : std::vector<std::pair<const char*, CpuBindMode>>{
           {"", CpuBindMode::None}, {"none", CpuBindMode::None}, {"numa", CpuBindMode::Numa}, {"cores", CpuBindMode::Cores}}) {
    setenv("WM_CPU_BIND", value, 1);
    EXPECT(wm::cpuBindModeFromEnv() == mode);
  }
  setenv("WM_CPU_BIND", "core", 1);
  EXPECT_THROWS([] { wm::cpuBindModeFromEnv(); }, "WM_CPU_BIND", "none, numa or cores", "'core'");
  if (saved)
    setenv("WM_CPU_BIND", keep.c_str(), 1);
  else
    unsetenv("WM_CPU_BIND");
  fs::remove_all(root);
}

// ---- the all-reduce's plan (one Float64Array from JavaScript) ----------------------------------------
void testAllReducePlan() {
  using P = std::vector<double>;
  const auto read = [](const P& v) { return wm::readAllReducePlan(v.data(), static_cast<int64_t>(v.size())); };
  // Two tensors, bfloat16 wire, mean, two-shot, outputs given, no SGD step.
  const wm::AllReducePlan a = read({2, 2, 1, 2, 0, 0, 4096, 8192, 12288, 16384, 5, 7, 0, 0});
  EXPECT(a.n == 2 && a.wire == wm::WireType::BF16 && a.mean && a.algo == 2 && !a.allocates && a.params.empty());
  EXPECT(a.ins == std::vector<uint64_t>({4096, 8192}) && a.outs == std::vector<uint64_t>({12288, 16384}));
  EXPECT(a.counts == std::vector<int64_t>({5, 7}));
  EXPECT(wm::planOutputSlot(2, 1) == 9);
  // Outputs allocated by the addon (their slots unread), the fused SGD step.
  const wm::AllReducePlan b = read({1, 0, 0, 0, 0.25, 3, 4096, 0, 3, 65536});
  EXPECT(b.allocates && b.lr == 0.25f && b.params == std::vector<uint64_t>({65536}) && b.outs == std::vector<uint64_t>({0}));
  EXPECT(read({0, 0, 0, 0, 0, 0}).n == 0);
  const double addressPast53 = 9007199254740992.0;
  EXPECT_THROWS([&] { read({1, 0, 0, 0, 0, 0, 4096, 4096}); }, "plan of 1 tensors holds 10 numbers, got 8");
  EXPECT_THROWS([&] { read({1, 0}); }, "at least 6 numbers, got 2");
  EXPECT_THROWS([&] { read({1.5, 0, 0, 0, 0, 0}); }, "plan[0]", "(tensors) must be an integer");
  EXPECT_THROWS([&] { read({1, 3, 0, 0, 0, 0, 4096, 4096, 1, 0}); }, "plan[1]", "wire");
  EXPECT_THROWS([&] { read({1, 0, 2, 0, 0, 0, 4096, 4096, 1, 0}); }, "plan[2]", "mean");
  EXPECT_THROWS([&] { read({1, 0, 0, 4, 0, 0, 4096, 4096, 1, 0}); }, "plan[3]", "algo");
  EXPECT_THROWS([&] { read({1, 0, 0, 0, 0, 4, 4096, 4096, 1, 0}); }, "plan[5]", "flags");
  EXPECT_THROWS([&] { read({1, 0, 0, 0, NAN, 2, 4096, 4096, 1, 8192}); }, "plan[4]", "lr", "finite");
  EXPECT_THROWS([&] { read({1, 0, 0, 0, 0, 0, 0, 4096, 1, 0}); }, "plan[6]", "input's device address");
  EXPECT_THROWS([&] { read({1, 0, 0, 0, 0, 0, 4096, addressPast53, 1, 0}); }, "plan[7]", "output's device address");
  EXPECT_THROWS([&] { read({1, 0, 0, 0, 0, 0, 4096, 4096, -1, 0}); }, "plan[8]", "element count");
  EXPECT_THROWS([&] { read({1, 0, 0, 0, 0.5, 2, 4096, 4096, 1, 0}); }, "plan[9]", "parameter's device address");
}

// ---- host kernels at their edges -------------------------------------------------------------------
void testHostKernels() {
  // gather: the first out-of-range index is reported, and nothing is written.
  std::vector<float> x{1, 2, 3, 4, 5, 6};  // [3, 2]
  std::vector<int32_t> idx{2, 0, 3};
  std::vector<float> y(6, -1.f);
  EXPECT(wm::host::gather(4, x.data(), idx.data(), y.data(), 1, 3, 2, 3, 1) == 2);
  EXPECT(y == std::vector<float>(6, -1.f));
  idx = {2, 0, -1};
  EXPECT(wm::host::gather(4, x.data(), idx.data(), y.data(), 1, 3, 2, 3, 1) == 2);
  idx = {2, 0};
  EXPECT(wm::host::gather(4, x.data(), idx.data(), y.data(), 1, 3, 2, 2, 1) == -1);
  EXPECT((std::vector<float>(y.begin(), y.begin() + 4) == std::vector<float>{5, 6, 1, 2}));
  EXPECT(wm::host::gather(4, x.data(), idx.data(), y.data(), 1, 3, 2, 0, 1) == -1);  // no indices

  // topK: ties by position, k = n, and empty inputs.
  std::vector<float> v{1, 3, 3, 2};
  std::vector<float> vals(4);
  std::vector<int32_t> ids(4);
  wm::host::topK(wm::DType::F32, v.data(), vals.data(), ids.data(), 1, 4, 4);
  EXPECT((vals == std::vector<float>{3, 3, 2, 1}) && (ids == std::vector<int32_t>{1, 2, 3, 0}));
  wm::host::topK(wm::DType::F32, v.data(), vals.data(), ids.data(), 0, 4, 2);
  wm::host::topK(wm::DType::F32, v.data(), vals.data(), ids.data(), 1, 4, 0);

  // CSR building: duplicates and self loops dropped, rows sorted, symmetric adds reverses; offsets 64-bit.
  std::vector<int32_t> src{0, 0, 1, 2, 2}, dst{1, 1, 1, 0, 1};
  auto arrays = [](const wm::host::NativeGraph& g) {
    return std::make_pair(std::vector<int64_t>(g.rowPtr(), g.rowPtr() + g.numVertices() + 1),
                          std::vector<int32_t>(g.colIdx(), g.colIdx() + g.numEdges()));
  };
  auto c = arrays(*wm::host::NativeGraph::fromEdges(3, src.data(), dst.data(), 5, false));
  EXPECT((c.first == std::vector<int64_t>{0, 1, 1, 3}) && (c.second == std::vector<int32_t>{1, 0, 1}));
  c = arrays(*wm::host::NativeGraph::fromEdges(3, src.data(), dst.data(), 5, true));
  EXPECT((c.first == std::vector<int64_t>{0, 2, 4, 6}) && (c.second == std::vector<int32_t>{1, 2, 0, 2, 0, 1}));
  c = arrays(*wm::host::NativeGraph::fromEdges(0, nullptr, nullptr, 0, true));
  EXPECT(c.first == std::vector<int64_t>{0} && c.second.empty());

  // Entries placed through the bucketing buffer: each row's entries in the edges' order, whatever the
  // chunk, the threads' shares and the blocks of rows (all small here, so every path runs).
  std::mt19937 gen(7);
  for (const int64_t n : {1, 5, 1000}) {
    const int64_t m = n == 1 ? 3 : 20 * n + 3;
    std::vector<int32_t> s(static_cast<size_t>(m)), d(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      // Vertex 0 a hub: a quarter of the edges start there.
      s[static_cast<size_t>(i)] = gen() % 4 == 0 ? 0 : static_cast<int32_t>(gen() % n);
      d[static_cast<size_t>(i)] = static_cast<int32_t>(gen() % n);
    }
    for (const bool symmetric : {false, true}) {
      std::vector<int64_t> st(static_cast<size_t>(n) + 1, 0);
      for (int64_t i = 0; i < m; ++i) {
        ++st[static_cast<size_t>(s[static_cast<size_t>(i)]) + 1];
        if (symmetric) ++st[static_cast<size_t>(d[static_cast<size_t>(i)]) + 1];
      }
      for (int64_t v = 0; v < n; ++v) st[static_cast<size_t>(v) + 1] += st[static_cast<size_t>(v)];
      std::vector<int32_t> want(static_cast<size_t>(st.back()));
      std::vector<int64_t> cur(st.begin(), st.end() - 1);
      for (int64_t i = 0; i < m; ++i) {
        const int32_t u = s[static_cast<size_t>(i)], v = d[static_cast<size_t>(i)];
        want[static_cast<size_t>(cur[static_cast<size_t>(u)]++)] = v;
        if (symmetric) want[static_cast<size_t>(cur[static_cast<size_t>(v)]++)] = u;
      }
      for (const int64_t chunkEntries : {n < 1000 ? int64_t{5} : int64_t{4001}, int64_t{997}, int64_t{1} << 25})
        for (const int64_t blockEntries : {int64_t{1}, int64_t{64}, int64_t{1} << 20}) {
          std::vector<int32_t> got(want.size(), -1);
          const wm::host::PlacementOptions o{chunkEntries, 1, blockEntries};
          wm::host::placeEntries(n, s.data(), d.data(), m, symmetric, st.data(), got.data(), o);
          EXPECT(got == want);
          // The same edges a few at a time through one placer, with non-edges (a negative src) among them.
          std::vector<int32_t> again(want.size(), -1), ps, pd;
          wm::host::EntryPlacer placer(n, st.data(), again.data(), symmetric, 2 * m, o);
          const int64_t step = n < 1000 ? 9 : 2003;
          for (int64_t i0 = 0; i0 < m; i0 += step) {
            ps.clear();
            pd.clear();
            for (int64_t i = i0; i < std::min(m, i0 + step); ++i) {
              ps.push_back(s[static_cast<size_t>(i)]);
              pd.push_back(d[static_cast<size_t>(i)]);
              ps.push_back(-1);
              pd.push_back(static_cast<int32_t>(gen() % n));
            }
            placer.place(ps.data(), pd.data(), static_cast<int64_t>(ps.size()));
          }
          EXPECT(again == want);
        }
    }
  }
}

}  // namespace

// The digest covers every byte: each byte of buffers of every length up to 100, and of the last
// 100 bytes and both sides of the block boundary of a buffer past one 1 MiB block, flipped in turn,
// changes it; a buffer and the same with a zero byte appended differ.
void testDigest() {
  std::mt19937_64 rng(7);
  auto flips = [&](std::vector<uint8_t>& b, size_t from, size_t to) {
    const uint64_t base = wm::host::digest(b.data(), b.size(), 11);
    bool all = true;
    for (size_t i = from; i < to; ++i) {
      b[i] ^= 0x01;
      all &= wm::host::digest(b.data(), b.size(), 11) != base;
      b[i] ^= 0x01;
    }
    EXPECT(all);
    EXPECT(wm::host::digest(b.data(), b.size(), 11) == base);
  };
  for (size_t n = 1; n <= 100; ++n) {
    std::vector<uint8_t> b(n);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    flips(b, 0, n);
    std::vector<uint8_t> longer = b;
    longer.push_back(0);
    EXPECT(wm::host::digest(longer.data(), longer.size(), 11) != wm::host::digest(b.data(), b.size(), 11));
  }
  std::vector<uint8_t> big((size_t{1} << 20) + 77);
  for (auto& x : big) x = static_cast<uint8_t>(rng());
  flips(big, big.size() - 100, big.size());
  flips(big, (size_t{1} << 20) - 40, (size_t{1} << 20) + 40);
}

int main() {
  const std::vector<std::pair<const char*, void (*)()>> tests = {
      {"argument reader", testArgumentReader},
      {"authentication", testAuthentication},
      {"framing", testFraming},
      {"bootstrap", testBootstrap},
      {"slice layout", testSliceLayout},
      {"GPU sharing", testGpuSharing},
      {"CPU binding", testCpuBinding},
      {"all-reduce plan", testAllReducePlan},
      {"host kernels", testHostKernels},
      {"digest", testDigest},
  };
  for (const auto& [name, test] : tests) {
    const int before = failures;
    try {
      test();
    } catch (const std::exception& e) {
      ++failures;
      std::cerr << name << ": unexpected exception: " << e.what() << std::endl;
    }
    std::cout << (failures == before ? "ok   " : "FAIL ") << name << std::endl;
  }
  std::cout << checks << " checks, " << failures << " failed" << std::endl;
  return failures == 0 ? 0 : 1;
}
