// An NCCL communicator over the ranks of a bootstrap group, one GPU each:
// what moves rows of 'distributed' WholeMemory between ranks (and hosts) and
// what all-reduces where our peer-to-peer kernels cannot. NCCL is loaded at
// run time (see cuda/nccl_loader.h). Every wait is bounded by the bootstrap's
// timeout: NCCL work that does not finish aborts the communicator, and the
// bootstrap then names the rank that is gone.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wm/bootstrap.h"

namespace wm {

// Whether NCCL can be used here, and if not, why.
bool ncclAvailable();
std::string ncclStatus();

class NcclComm {
 public:
  // Collective over `boot`: rank 0 draws NCCL's id, the bootstrap carries it.
  explicit NcclComm(std::shared_ptr<Bootstrap> boot);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  Bootstrap& bootstrap() { return *boot_; }
  int version() const { return version_; }

  // Queues, for every peer q, a send of sendBytes[q] bytes from send +
  // sendOffset[q] and a receive of recvBytes[q] bytes into recv + recvOffset[q].
  void allToAllV(uint64_t send, const std::vector<int64_t>& sendOffset, const std::vector<int64_t>& sendBytes, uint64_t recv,
                 const std::vector<int64_t>& recvOffset, const std::vector<int64_t>& recvBytes, const std::string& what);
  // One grouped call: recv[i] = op over ranks of send[i] (count[i] elements).
  // ncclType / ncclOp: NCCL's enum values (see nccl_loader.h).
  void allReduce(const std::vector<uint64_t>& send, const std::vector<uint64_t>& recv, const std::vector<int64_t>& count, int ncclType,
                 int ncclOp, const std::string& what);
  // Waits for everything queued on the stream, NCCL's work included.
  void wait(const std::string& what);

 private:
  void settle(int result, const std::string& what);
  [[noreturn]] void abortAndName(const std::string& what, const std::string& cause);
  void live(const std::string& what) const;

  std::shared_ptr<Bootstrap> boot_;
  void* comm_ = nullptr;
  int version_ = 0;
  bool broken_ = false;
};

}  // namespace wm
