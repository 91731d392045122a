
#include <cstring>

#include "runtime/check.h"
#include "runtime/copy_rows.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/distributed.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void ownerKernel(const int32_t* idx, int64_t n, int64_t rows, int64_t rowsPerRank, int32_t* owner, int32_t* pos,
                            unsigned long long* counts, unsigned long long* bad) {
  WM_GRID_STRIDE(i, n) {
    int64_t r = idx[i];
    pos[i] = static_cast<int32_t>(i);
    if (r < 0 || r >= rows) {
      owner[i] = 0;
      atomicMin(bad, static_cast<unsigned long long>(i));
      continue;
    }
    int32_t o = static_cast<int32_t>(r / rowsPerRank);
    owner[i] = o;
    atomicAdd(counts + o, 1ull);
  }
}

// localIdx[j] = the row's index within its owner's slice, in owner order.
__global__ void localIndexKernel(const int32_t* idx, const int32_t* perm, const int32_t* ownerSorted, int64_t n, int64_t rowsPerRank,
                                 int32_t* localIdx) {
  WM_GRID_STRIDE(j, n) localIdx[j] = static_cast<int32_t>(idx[perm[j]] - ownerSorted[j] * rowsPerRank);
}

// Of each run of equal rows (sorted stably), only the last entry writes.
__global__ void writeLastKernel(const uint32_t* rowsIn, const int32_t* order, const int32_t* sortedRow, int64_t n, int64_t words,
                                uint32_t* slice) {
  WM_GRID_STRIDE(t, n * words) {
    int64_t j = t / words, k = t - j * words;
    if (j + 1 < n && sortedRow[j + 1] == sortedRow[j]) continue;
    slice[static_cast<int64_t>(sortedRow[j]) * words + k] = rowsIn[static_cast<int64_t>(order[j]) * words + k];
  }
}

// Everything both directions need: every index's owner, the per-owner order,
// and every rank's counts (exchanged through the bootstrap, which doubles as
// the check that every rank is here and that every index is in range).
struct Plan {
  int ranks = 0, rank = 0;
  std::vector<int64_t> sendCount, sendOffset, recvCount, recvOffset;
  int64_t recvTotal = 0;
  int32_t* perm = nullptr;      // position in the caller's order of each owner-ordered entry
  int32_t* localIdx = nullptr;  // the entry's row within its owner's slice
};

Plan plan(NcclComm& comm, Scratch& s, const DistributedLayout& L, uint64_t indices, int64_t n, const std::string& what) {
  WM_REQUIRE(n < (int64_t{1} << 31), what + ": at most 2^31 - 1 indices per call");
  Bootstrap& boot = comm.bootstrap();
  Plan p;
  p.ranks = boot.size();
  p.rank = boot.rank();
  const int32_t* idx = reinterpret_cast<const int32_t*>(indices);
  auto* counts = s.get<unsigned long long>(p.ranks + 1);
  std::vector<unsigned long long> host(p.ranks + 1, 0);
  host[p.ranks] = ~0ull;
  copyHostToDevice(reinterpret_cast<uint64_t>(counts), host.data(), host.size() * sizeof(unsigned long long));
  int32_t* owner = s.get<int32_t>(n);
  int32_t* pos = s.get<int32_t>(n);
  if (n > 0) {
    ownerKernel<<<gridFor(n), kThreads, 0, stream()>>>(idx, n, L.rows, L.rowsPerRank, owner, pos, counts, counts + p.ranks);
    WM_CUDA_LAUNCHED();
  }
  copyDeviceToHost(host.data(), reinterpret_cast<uint64_t>(counts), host.size() * sizeof(unsigned long long));
  std::string mine(reinterpret_cast<const char*>(host.data()), host.size() * sizeof(unsigned long long));
  auto all = boot.allgather(mine, what + " (counts)");
  if (host[p.ranks] != ~0ull) {
    int32_t value = 0;
    copyDeviceToHost(&value, indices + host[p.ranks] * sizeof(int32_t), sizeof value);
    fail(what + ": index " + std::to_string(value) + " at position " + std::to_string(host[p.ranks]) + " is outside the " + L.noun + "'s " +
         std::to_string(L.rows) + " rows");
  }
  for (int q = 0; q < p.ranks; ++q) {
    WM_REQUIRE(all[q].size() == mine.size(), what + ": rank " + std::to_string(q) + " sent a malformed count list");
    unsigned long long theirs[2];
    std::memcpy(&theirs[1], all[q].data() + p.ranks * sizeof(unsigned long long), sizeof(unsigned long long));
    if (theirs[1] != ~0ull)
      fail(what + ": rank " + std::to_string(q) + " passed an index outside the " + L.noun + "'s " + std::to_string(L.rows) + " rows");
    std::memcpy(&theirs[0], all[q].data() + p.rank * sizeof(unsigned long long), sizeof(unsigned long long));
    p.recvCount.push_back(static_cast<int64_t>(theirs[0]));
    p.sendCount.push_back(static_cast<int64_t>(host[q]));
  }
  p.sendOffset.assign(p.ranks, 0);
  p.recvOffset.assign(p.ranks, 0);
  for (int q = 1; q < p.ranks; ++q) {
    p.sendOffset[q] = p.sendOffset[q - 1] + p.sendCount[q - 1];
    p.recvOffset[q] = p.recvOffset[q - 1] + p.recvCount[q - 1];
  }
  p.recvTotal = p.recvOffset[p.ranks - 1] + p.recvCount[p.ranks - 1];
  p.perm = s.get<int32_t>(n);
  p.localIdx = s.get<int32_t>(n);
  if (n > 0) {
    int32_t* ownerSorted = s.get<int32_t>(n);
    radixSortPairs(s, owner, ownerSorted, pos, p.perm, n, bitsBelow(p.ranks));
    localIndexKernel<<<gridFor(n), kThreads, 0, stream()>>>(idx, p.perm, ownerSorted, n, L.rowsPerRank, p.localIdx);
    WM_CUDA_LAUNCHED();
  }
  return p;
}

std::vector<int64_t> times(const std::vector<int64_t>& v, int64_t k) {
  std::vector<int64_t> out(v);
  for (auto& x : out) x *= k;
  return out;
}

// Rows sent to their owners with their local indices: what this rank
// received, in rank order, then in each rank's order.
struct Arrived {
  int32_t* rows;
  uint8_t* values;
  int64_t count;
};

Arrived sendToOwners(NcclComm& comm, Scratch& s, const Plan& p, int64_t rowBytes, uint64_t values, int64_t n, const std::string& what) {
  auto* packed = s.get<uint8_t>(n * rowBytes);
  copyRows(values, p.perm, reinterpret_cast<uint64_t>(packed), nullptr, n, rowBytes);
  Arrived a{s.get<int32_t>(p.recvTotal), s.get<uint8_t>(p.recvTotal * rowBytes), p.recvTotal};
  comm.allToAllV(reinterpret_cast<uint64_t>(p.localIdx), times(p.sendOffset, 4), times(p.sendCount, 4), reinterpret_cast<uint64_t>(a.rows),
                 times(p.recvOffset, 4), times(p.recvCount, 4), what + " (indices)");
  comm.allToAllV(reinterpret_cast<uint64_t>(packed), times(p.sendOffset, rowBytes), times(p.sendCount, rowBytes),
                 reinterpret_cast<uint64_t>(a.values), times(p.recvOffset, rowBytes), times(p.recvCount, rowBytes), what + " (rows)");
  return a;
}

// Arrivals sorted stably by row: the last of each run of equal rows is the
// write that wins.
struct ByRow {
  int32_t* sortedRow;
  int32_t* order;  // arrival position of each sorted entry
};

ByRow sortByRow(Scratch& s, const Arrived& a, int64_t localRows) {
  int32_t* arrival = s.get<int32_t>(a.count);
  iota(arrival, a.count);
  ByRow b{s.get<int32_t>(a.count), s.get<int32_t>(a.count)};
  radixSortPairs(s, a.rows, b.sortedRow, arrival, b.order, a.count, bitsBelow(std::max<int64_t>(localRows, 1)));
  return b;
}

// The row each sorted entry writes, or -1 where a later duplicate wins (the
// embedding write kernel skips rows outside the table).
__global__ void winnersKernel(const int32_t* sortedRow, int64_t n, int32_t* rows) {
  WM_GRID_STRIDE(j, n) rows[j] = j + 1 == n || sortedRow[j + 1] != sortedRow[j] ? sortedRow[j] : -1;
}

// Requests out, the owners' answers (replyBytes each, filled by `answer` from
// the local indices asked of this rank), rows back: `place` puts the n replies
// (in owner order) into the callers' order, entry j at position perm[j].
template <typename Answer, typename Place>
void gatherFromOwners(NcclComm& comm, const DistributedLayout& L, int64_t replyBytes, uint64_t indices, int64_t n, const std::string& what,
                      Answer&& answer, Place&& place) {
  Scratch s;
  Plan p = plan(comm, s, L, indices, n, what);
  const int64_t rb = replyBytes;
  int32_t* asked = s.get<int32_t>(p.recvTotal);
  auto* replies = s.get<uint8_t>(p.recvTotal * rb);
  auto* rowsBack = s.get<uint8_t>(n * rb);
  comm.allToAllV(reinterpret_cast<uint64_t>(p.localIdx), times(p.sendOffset, 4), times(p.sendCount, 4), reinterpret_cast<uint64_t>(asked),
                 times(p.recvOffset, 4), times(p.recvCount, 4), what + " (requests)");
  answer(asked, p.recvTotal, reinterpret_cast<uint64_t>(replies));
  comm.allToAllV(reinterpret_cast<uint64_t>(replies), times(p.recvOffset, rb), times(p.recvCount, rb), reinterpret_cast<uint64_t>(rowsBack),
                 times(p.sendOffset, rb), times(p.sendCount, rb), what + " (rows)");
  place(s, reinterpret_cast<uint64_t>(rowsBack), p.perm, n);
  comm.wait(what);
}

// The place step of rows that arrive as the caller's rows are: each copied to its position.
auto placeRows(uint64_t out, int64_t rowBytes) {
  return [=](Scratch&, uint64_t rows, const int32_t* perm, int64_t count) { copyRows(rows, nullptr, out, perm, count, rowBytes); };
}

// inverse[perm[j]] = j.
__global__ void invertKernel(const int32_t* perm, int64_t n, int32_t* inverse) {
  WM_GRID_STRIDE(j, n) inverse[perm[j]] = static_cast<int32_t>(j);
}

// Rows to their owners, sorted there by row (stable) for `write`, which
// decides what the last of each run of duplicates does.
template <typename Write>
void writeToOwners(NcclComm& comm, const DistributedLayout& L, uint64_t indices, int64_t n, uint64_t values, const std::string& what,
                   Write&& write) {
  Scratch s;
  Plan p = plan(comm, s, L, indices, n, what);
  Arrived a = sendToOwners(comm, s, p, L.rowBytes, values, n, what);
  if (a.count > 0 && L.rowBytes > 0) write(s, a, sortByRow(s, a, L.localRows));
  comm.wait(what);
}

}  // namespace

void distributedGather(NcclComm& comm, const DistributedLayout& L, uint64_t indices, int64_t n, uint64_t out, const std::string& what) {
  gatherFromOwners(
      comm, L, L.rowBytes, indices, n, what,
      [&](const int32_t* asked, int64_t count, uint64_t replies) { copyRows(L.localSlice, asked, replies, nullptr, count, L.rowBytes); },
      placeRows(out, L.rowBytes));
}

void distributedScatter(NcclComm& comm, const DistributedLayout& L, uint64_t indices, int64_t n, uint64_t values, const std::string& what) {
  writeToOwners(comm, L, indices, n, values, what, [&](Scratch&, const Arrived& a, const ByRow& b) {
    int64_t words = L.rowBytes / 4;
    writeLastKernel<<<gridFor(a.count * words), kThreads, 0, stream()>>>(reinterpret_cast<const uint32_t*>(a.values), b.order, b.sortedRow,
                                                                         a.count, words, reinterpret_cast<uint32_t*>(L.localSlice));
    WM_CUDA_LAUNCHED();
  });
}

void distributedEmbeddingGather(NcclComm& comm, const DistributedLayout& L, const TableRef& local, uint64_t indices, int64_t n,
                                uint64_t out, const std::string& what) {
  if (local.storage == StorageType::F32) {
    gatherFromOwners(
        comm, L, L.rowBytes, indices, n, what,
        [&](const int32_t* asked, int64_t count, uint64_t replies) {
          embeddingGather(local, reinterpret_cast<uint64_t>(asked), IndexType::I32, count, replies, 0);
        },
        placeRows(out, L.rowBytes));
    return;
  }
  // A 16-bit table's rows cross in their storage type, half the bytes of float32: the owner reads them (in
  // float32, as every gather reads a table) and rounds them back, exactly; the reader widens them into place.
  const TableRef narrow{0, nullptr, 0, local.dim, local.storage};
  gatherFromOwners(
      comm, L, local.dim * storageBytes(local.storage), indices, n, what,
      [&](const int32_t* asked, int64_t count, uint64_t replies) {
        if (count == 0) return;
        Scratch s;
        auto* wide = s.get<float>(count * local.dim);
        embeddingGather(local, reinterpret_cast<uint64_t>(asked), IndexType::I32, count, reinterpret_cast<uint64_t>(wide), 0);
        int32_t* order = s.get<int32_t>(count);
        iota(order, count);
        TableRef to = narrow;
        to.ptr = replies;
        to.rows = count;
        embeddingWriteRows(to, reinterpret_cast<uint64_t>(order), IndexType::I32, count, reinterpret_cast<uint64_t>(wide), 0);
      },
      [&](Scratch& s, uint64_t rows, const int32_t* perm, int64_t count) {
        if (count == 0) return;
        int32_t* from = s.get<int32_t>(count);
        invertKernel<<<gridFor(count), kThreads, 0, stream()>>>(perm, count, from);
        WM_CUDA_LAUNCHED();
        TableRef back = narrow;
        back.ptr = rows;
        back.rows = count;
        embeddingGather(back, reinterpret_cast<uint64_t>(from), IndexType::I32, count, out, 0);
      });
}

void distributedEmbeddingWrite(NcclComm& comm, const DistributedLayout& L, const TableRef& local, uint64_t indices, int64_t n,
                               uint64_t values, const std::string& what) {
  writeToOwners(comm, L, indices, n, values, what, [&](Scratch& s, const Arrived& a, const ByRow& b) {
    int32_t* rows = s.get<int32_t>(a.count);
    winnersKernel<<<gridFor(a.count), kThreads, 0, stream()>>>(b.sortedRow, a.count, rows);
    WM_CUDA_LAUNCHED();
    auto* sortedValues = s.get<uint8_t>(a.count * L.rowBytes);
    copyRows(reinterpret_cast<uint64_t>(a.values), b.order, reinterpret_cast<uint64_t>(sortedValues), nullptr, a.count, L.rowBytes);
    embeddingWriteRows(local, reinterpret_cast<uint64_t>(rows), IndexType::I32, a.count, reinterpret_cast<uint64_t>(sortedValues), 0);
  });
}

void distributedEmbeddingApply(NcclComm& comm, const DistributedLayout& L, const TableRef& local, uint64_t state0, uint64_t state1,
                               uint64_t indices, int64_t n, uint64_t grads, SparseOptimizer opt, const OptimizerParams& params,
                               uint64_t skipped, const std::string& what) {
  Scratch s;
  Plan p = plan(comm, s, L, indices, n, what);
  Arrived a = sendToOwners(comm, s, p, L.rowBytes, grads, n, what);
  // Duplicates from every rank are merged by the apply kernel: one update per row.
  if (a.count > 0 && L.rowBytes > 0) {
    embeddingApply(local, state0, state1, reinterpret_cast<uint64_t>(a.rows), IndexType::I32, a.count, reinterpret_cast<uint64_t>(a.values),
                   opt, params, 0, skipped);
  }
  comm.wait(what);
}

}  // namespace wm
