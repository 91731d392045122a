#include "wm/bootstrap.h"

#include <poll.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "socket_io.h"
#include "wm/status.h"

namespace wm {
namespace {

using net::IoResult;

// Rank 0's listening sockets, created with the unique id and claimed by the
// communicator that uses it.
struct Listener {
  int tcp = -1;
  int local = -1;
};
std::mutex registryMu;
std::map<std::string, Listener> registry;

// Peers wait a little longer than rank 0, so that rank 0's diagnosis (which
// rank is missing) reaches them before their own timeout fires.
constexpr int64_t kGraceMs = 2000;

struct ParsedId {
  std::string host, nonce;
  int port = 0;
};

ParsedId parseId(const std::string& id) {
  size_t b = id.rfind(':');
  size_t a = b == std::string::npos ? b : id.rfind(':', b - 1);
  ParsedId p;
  if (a == std::string::npos || a == 0) fail("uniqueId \"" + id + "\" is not host:port:nonce (use getUniqueId())");
  p.host = id.substr(0, a);
  p.nonce = id.substr(b + 1);
  try {
    p.port = std::stoi(id.substr(a + 1, b - a - 1));
  } catch (...) {
    fail("uniqueId \"" + id + "\": the port is not a number");
  }
  if (p.nonce.empty() || p.port <= 0 || p.port > 65535) fail("uniqueId \"" + id + "\" is not host:port:nonce");
  return p;
}

std::string localName(const std::string& nonce) { return "tfjs-wm-" + nonce; }

std::string encodeList(const std::vector<std::string>& v) {
  std::string out;
  uint32_t n = static_cast<uint32_t>(v.size());
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  for (const auto& s : v) {
    uint64_t len = s.size();
    out.append(reinterpret_cast<const char*>(&len), sizeof len);
    out.append(s);
  }
  return out;
}

std::vector<std::string> decodeList(const std::string& in) {
  size_t pos = 0;
  auto take = [&](void* dst, size_t n) {
    if (pos + n > in.size()) fail("bootstrap: truncated message");
    std::memcpy(dst, in.data() + pos, n);
    pos += n;
  };
  uint32_t n = 0;
  take(&n, sizeof n);
  std::vector<std::string> v(n);
  for (auto& s : v) {
    uint64_t len = 0;
    take(&len, sizeof len);
    if (pos + len > in.size()) fail("bootstrap: truncated message");
    s.assign(in.data() + pos, len);
    pos += len;
  }
  return v;
}

}  // namespace

std::string bootstrapUniqueId(const std::string& host, int port, const std::string& nonceIn) {
  std::string nonce = nonceIn;
  if (nonce.empty()) {
    std::random_device rd;
    std::ostringstream s;
    s << std::hex << rd() << rd() << getpid();
    nonce = s.str();
  }
  Listener l;
  int bound = 0;
  l.tcp = net::listenTcp(host, port, &bound);
  try {
    l.local = net::listenAbstractUnix(localName(nonce));
  } catch (...) {
    ::close(l.tcp);
    throw;
  }
  std::lock_guard<std::mutex> lock(registryMu);
  std::string id = host + ":" + std::to_string(bound) + ":" + nonce;
  registry[nonce] = l;
  return id;
}

struct Bootstrap::Impl {
  std::vector<int> tcp;    // rank 0: one per peer (index = rank); peers: [0] = rank 0
  std::vector<int> local;  // same, Unix sockets (same-host groups)
  uint32_t seq = 0;
  std::string broken;      // set after a failed collective
  std::string nonce;

  ~Impl() {
    for (int fd : tcp)
      if (fd >= 0) ::close(fd);
    for (int fd : local)
      if (fd >= 0) ::close(fd);
  }
};

Bootstrap::Bootstrap(const std::string& uniqueId, int rank, int size, int64_t timeoutMs)
    : impl_(new Impl()), rank_(rank), size_(size), timeoutMs_(timeoutMs) {
  WM_REQUIRE(size >= 1, "createCommunicator: size must be at least 1, got " + std::to_string(size));
  WM_REQUIRE(rank >= 0 && rank < size, "createCommunicator: rank " + std::to_string(rank) + " is not in [0, " +
                                           std::to_string(size) + ")");
  WM_REQUIRE(timeoutMs > 0, "createCommunicator: timeoutMs must be positive");
  ParsedId id = parseId(uniqueId);
  impl_->nonce = id.nonce;
  impl_->tcp.assign(size, -1);
  impl_->local.assign(size, -1);
  const std::string me = net::hostName();
  if (rank == 0) {
    Listener l;
    {
      std::lock_guard<std::mutex> lock(registryMu);
      auto it = registry.find(id.nonce);
      WM_REQUIRE(it != registry.end(),
                 "createCommunicator: rank 0 must use a uniqueId made by getUniqueId() in this process");
      l = it->second;
      registry.erase(it);
    }
    struct Close {
      Listener& l;
      ~Close() {
        ::close(l.tcp);
        ::close(l.local);
      }
    } closeListeners{l};
    auto deadline = net::deadlineIn(timeoutMs);
    std::vector<std::string> hosts(size);
    hosts[0] = me;
    int joined = 1;
    while (joined < size) {
      int fd = net::acceptBefore(l.tcp, deadline);
      if (fd < 0) {
        std::string missing;
        for (int r = 1; r < size; ++r)
          if (impl_->tcp[r] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        fail("createCommunicator: rank(s) " + missing + " did not join within " + std::to_string(timeoutMs) + " ms");
      }
      std::string hello;
      if (net::recvFrame(fd, hello, deadline) != IoResult::Ok) {
        ::close(fd);
        continue;
      }
      std::istringstream in(hello);
      std::string magic, nonce, host;
      int r = -1, s = -1;
      in >> magic >> nonce >> r >> s >> host;
      if (magic != "tfjs-wm" || nonce != id.nonce) {  // a stray connection
        ::close(fd);
        continue;
      }
      std::string err;
      if (s != size) err = "rank " + std::to_string(r) + " says the group has " + std::to_string(s) + " ranks, rank 0 says " + std::to_string(size);
      else if (r <= 0 || r >= size) err = "a process joined as rank " + std::to_string(r) + ", not in [1, " + std::to_string(size) + ")";
      else if (impl_->tcp[r] >= 0) err = "two processes joined as rank " + std::to_string(r);
      if (!err.empty()) {
        net::sendFrame(fd, "E" + err, deadline);
        ::close(fd);
        for (int q = 1; q < size; ++q)
          if (impl_->tcp[q] >= 0) net::sendFrame(impl_->tcp[q], "E" + err, deadline);
        fail("createCommunicator: " + err);
      }
      impl_->tcp[r] = fd;
      hosts[r] = host;
      ++joined;
    }
    for (int r = 1; r < size; ++r) sameHost_ = sameHost_ && hosts[r] == me;
    for (int r = 1; r < size; ++r) net::sendFrame(impl_->tcp[r], std::string("K") + (sameHost_ ? "1" : "0"), deadline);
    if (sameHost_) {
      for (int got = 1; got < size;) {
        int fd = net::acceptBefore(l.local, deadline);
        if (fd < 0) fail("createCommunicator: not every rank opened the local socket within " + std::to_string(timeoutMs) + " ms");
        std::string who;
        if (net::recvFrame(fd, who, deadline) != IoResult::Ok) {
          ::close(fd);
          continue;
        }
        int r = std::atoi(who.c_str());
        if (r <= 0 || r >= size || impl_->local[r] >= 0) {
          ::close(fd);
          continue;
        }
        impl_->local[r] = fd;
        ++got;
      }
    }
  } else {
    auto deadline = net::deadlineIn(timeoutMs);
    int fd = net::connectTcp(id.host, id.port, deadline);
    if (fd < 0) fail("createCommunicator: rank " + std::to_string(rank) + " could not reach rank 0 at " + id.host + ":" + std::to_string(id.port) + " within " + std::to_string(timeoutMs) + " ms");
    impl_->tcp[0] = fd;
    std::ostringstream hello;
    hello << "tfjs-wm " << id.nonce << " " << rank << " " << size << " " << me;
    auto late = net::deadlineIn(timeoutMs + kGraceMs);
    std::string welcome;
    if (net::sendFrame(fd, hello.str(), late) != IoResult::Ok || net::recvFrame(fd, welcome, late) != IoResult::Ok)
      fail("createCommunicator: rank 0 at " + id.host + ":" + std::to_string(id.port) + " did not accept rank " + std::to_string(rank) + " within " + std::to_string(timeoutMs) + " ms");
    if (welcome.empty() || welcome[0] == 'E') fail("createCommunicator: " + welcome.substr(1));
    sameHost_ = welcome == "K1";
    if (sameHost_) {
      int u = net::connectAbstractUnix(localName(id.nonce), late);
      if (u < 0) fail("createCommunicator: could not open rank 0's local socket");
      impl_->local[0] = u;
      net::sendFrame(u, std::to_string(rank), late);
    }
  }
}

Bootstrap::~Bootstrap() = default;

std::vector<std::string> Bootstrap::allgather(const std::string& mine, const std::string& what) {
  if (!impl_->broken.empty()) fail("communicator unusable after an earlier failure: " + impl_->broken);
  uint32_t seq = ++impl_->seq;
  std::string tag = std::to_string(seq) + " " + what;
  auto failWith = [&](const std::string& msg) {
    impl_->broken = msg;
    fail(msg);
  };
  if (size_ == 1) return {mine};
  if (rank_ != 0) {
    auto late = net::deadlineIn(timeoutMs_ + kGraceMs);
    if (net::sendFrame(impl_->tcp[0], encodeList({tag, mine}), late) != IoResult::Ok)
      failWith(what + ": rank 0 is gone (it exited or was killed)");
    std::string resp;
    IoResult r = net::recvFrame(impl_->tcp[0], resp, late);
    if (r == IoResult::Closed) failWith(what + ": rank 0 disconnected (it exited or was killed)");
    if (r == IoResult::TimedOut) failWith(what + ": rank 0 did not answer within " + std::to_string(timeoutMs_) + " ms");
    if (resp.empty() || resp[0] == 'E') failWith(resp.substr(1));
    return decodeList(resp.substr(1));
  }
  std::vector<std::string> blobs(size_);
  blobs[0] = mine;
  std::vector<bool> have(size_, false);
  have[0] = true;
  int pending = size_ - 1;
  auto deadline = net::deadlineIn(timeoutMs_);
  std::string error;
  while (pending > 0 && error.empty()) {
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    for (int r = 1; r < size_; ++r)
      if (!have[r]) {
        fds.push_back({impl_->tcp[r], POLLIN, 0});
        ranks.push_back(r);
      }
    int n = ::poll(fds.data(), fds.size(), net::msLeft(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string missing;
      for (int r : ranks) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      error = what + ": rank(s) " + missing + " did not arrive within " + std::to_string(timeoutMs_) + " ms";
      break;
    }
    for (size_t i = 0; i < fds.size() && error.empty(); ++i) {
      if (!fds[i].revents) continue;
      int r = ranks[i];
      std::string frame;
      IoResult res = net::recvFrame(impl_->tcp[r], frame, deadline);
      if (res != IoResult::Ok) {
        error = what + ": rank " + std::to_string(r) + (res == IoResult::Closed ? " disconnected (it exited or was killed)" : " did not arrive in time");
        break;
      }
      auto parts = decodeList(frame);
      if (parts.size() != 2) {
        error = what + ": rank " + std::to_string(r) + " sent a malformed message";
        break;
      }
      if (parts[0] != tag) {
        error = "collectives out of order: rank " + std::to_string(r) + " called #" + parts[0] + " while rank 0 called #" + tag;
        break;
      }
      blobs[r] = std::move(parts[1]);
      have[r] = true;
      --pending;
    }
  }
  if (!error.empty()) {
    auto d = net::deadlineIn(1000);
    for (int r = 1; r < size_; ++r) net::sendFrame(impl_->tcp[r], "E" + error, d);
    failWith(error);
  }
  std::string resp = "K" + encodeList(blobs);
  for (int r = 1; r < size_; ++r) {
    if (net::sendFrame(impl_->tcp[r], resp, deadline) != IoResult::Ok)
      failWith(what + ": rank " + std::to_string(r) + " disconnected before the result was delivered");
  }
  return blobs;
}

void Bootstrap::barrier(const std::string& what) { allgather(std::string(), what); }

std::vector<int> Bootstrap::allgatherFds(int mine, const std::string& what) {
  WM_REQUIRE(sameHost_, what + ": descriptors can only be passed between ranks on one host");
  // Everyone is at the same collective before descriptors move.
  allgather(std::string(), what);
  auto late = net::deadlineIn(timeoutMs_ + kGraceMs);
  std::vector<int> all(size_, -1);
  auto dupOwn = [&] { return mine >= 0 ? ::dup(mine) : -1; };
  if (size_ == 1) return {dupOwn()};
  auto failWith = [&](const std::string& msg) {
    impl_->broken = msg;
    for (int fd : all)
      if (fd >= 0) ::close(fd);
    fail(msg);
  };
  if (rank_ != 0) {
    if (net::sendFds(impl_->local[0], {mine}, late) != IoResult::Ok) failWith(what + ": rank 0 is gone");
    std::vector<int> got;
    if (net::recvFds(impl_->local[0], got, late) != IoResult::Ok || static_cast<int>(got.size()) != size_)
      failWith(what + ": rank 0 did not send the descriptors");
    all = got;
    if (all[rank_] >= 0) ::close(all[rank_]);
    all[rank_] = dupOwn();
    return all;
  }
  all[0] = mine;
  std::vector<int> received(size_, -1);
  for (int r = 1; r < size_; ++r) {
    std::vector<int> one;
    if (net::recvFds(impl_->local[r], one, late) != IoResult::Ok || one.size() != 1) {
      for (int fd : received)
        if (fd >= 0) ::close(fd);
      all.assign(size_, -1);
      failWith(what + ": rank " + std::to_string(r) + " did not send its descriptor");
    }
    received[r] = one[0];
    all[r] = one[0];
  }
  for (int r = 1; r < size_; ++r) {
    if (net::sendFds(impl_->local[r], all, late) != IoResult::Ok) {
      all[0] = -1;
      failWith(what + ": rank " + std::to_string(r) + " disconnected");
    }
  }
  all[0] = dupOwn();
  return all;
}

}  // namespace wm
