// The bootstrap communicator: how the ranks of a group find each other and
// exchange small messages and file descriptors. Rank 0 listens on TCP (so a
// group may span hosts) and, for ranks on its host, on an abstract Unix
// socket (descriptor passing; no file is left behind). Every collective goes
// through rank 0 and has a deadline: a rank that dies or never arrives makes
// the others fail with an error naming it, never hang.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wm {

// A unique id: "host:port:nonce:secret". Rank 0 creates it (and starts
// listening); the user sends it to the other ranks privately: the secret
// (hex) is the group's credential. Ranks prove they know it by answering
// fresh challenges (HMAC-SHA-256); it never crosses a socket and names no
// socket. On a host, ranks also check each other's uid (SO_PEERCRED), and
// descriptors move only between authenticated ranks.
// An empty nonce or secret draws a random one; the launcher passes its run id
// and secret (in the ranks' environment) so that every rank computes the id.
std::string bootstrapUniqueId(const std::string& host, int port, const std::string& nonce = "", const std::string& secretHex = "");

// The most ranks a group may have: every rank holds a socket to rank 0, and
// rank 0 two per rank (TCP and local); sizes past this are mistakes.
constexpr int kMaxRanks = 1 << 16;

class Bootstrap {
 public:
  // Collective: every rank calls it with the same id and size. timeoutMs
  // bounds every later collective too.
  Bootstrap(const std::string& uniqueId, int rank, int size, int64_t timeoutMs);
  ~Bootstrap();
  Bootstrap(const Bootstrap&) = delete;
  Bootstrap& operator=(const Bootstrap&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int64_t timeoutMs() const { return timeoutMs_; }
  void setTimeoutMs(int64_t ms) { timeoutMs_ = ms; }

  // Every rank's blob, in rank order. `what` names the collective in errors.
  std::vector<std::string> allgather(const std::string& mine, const std::string& what);
  void barrier(const std::string& what);
  // Each rank passes one descriptor (or -1) and receives every rank's, as
  // new descriptors the caller owns (its own is returned as a dup). Only for
  // groups whose ranks share a host.
  std::vector<int> allgatherFds(int mine, const std::string& what);
  bool sameHost() const { return sameHost_; }
  // This rank's host name, as the group told hosts apart when it was made.
  const std::string& host() const { return host_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_, size_;
  int64_t timeoutMs_;
  bool sameHost_ = true;
  std::string host_;
};

}  // namespace wm
