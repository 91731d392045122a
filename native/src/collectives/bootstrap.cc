#include "wm/bootstrap.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

#include "wm/hmac_sha256.h"
#include "collectives/socket_io.h"
#include "wm/status.h"

namespace wm {
namespace {

using net::IoResult;

// Rank 0's listening sockets, created with the unique id and claimed by the
// communicator that uses it.
struct Listener {
  int tcp = -1;
  int local = -1;
  std::string localName;  // random: neither the nonce nor the secret
};
std::mutex registryMu;
std::map<std::string, Listener> registry;

// Peers wait a little longer than rank 0, so that rank 0's diagnosis (which
// rank is missing) reaches them before their own timeout fires.
constexpr int64_t kGraceMs = 2000;
// How long a connection may take to prove it belongs to the group before it
// is dropped: a stray or hostile peer costs rank 0 at most this much.
constexpr int64_t kHandshakeMs = 5000;
constexpr size_t kSecretBytes = 32;
constexpr size_t kChallengeBytes = 32;

struct ParsedId {
  std::string host, nonce, secret;
  int port = 0;
};

// host:port:nonce:secret (hex). The host may hold colons; the other three
// fields never do.
ParsedId parseId(const std::string& id) {
  const std::string usage = "uniqueId is not host:port:nonce:secret (use the id getUniqueId() returned)";
  size_t c3 = id.rfind(':');
  size_t c2 = c3 == std::string::npos || c3 == 0 ? std::string::npos : id.rfind(':', c3 - 1);
  size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : id.rfind(':', c2 - 1);
  if (c1 == std::string::npos || c1 == 0) fail(usage);
  ParsedId p;
  p.host = id.substr(0, c1);
  p.nonce = id.substr(c2 + 1, c3 - c2 - 1);
  std::string port = id.substr(c1 + 1, c2 - c1 - 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    fail("uniqueId: the port \"" + port + "\" is not a number");
  p.port = std::stoi(port);
  p.secret = auth::fromHex(id.substr(c3 + 1), "uniqueId: the secret");
  if (p.nonce.empty() || p.nonce.find(' ') != std::string::npos || p.port <= 0 || p.port > 65535) fail(usage);
  if (p.secret.size() < 16) fail("uniqueId: the secret must be at least 16 bytes (32 hex digits)");
  return p;
}

std::string bytes(const auth::Digest& d) { return std::string(reinterpret_cast<const char*>(d.data()), d.size()); }

// What each side proves: the MAC of a fixed label, the other side's fresh
// challenge and the fields it vouches for.
std::string proof(const std::string& secret, const std::string& label, const std::string& challenge, const std::string& fields) {
  return auth::toHex(bytes(auth::hmacSha256(secret, label + '\n' + challenge + '\n' + fields)));
}

void report(const std::string& what) {
  // A dropped stranger is worth a line, never a failed launch.
  std::fprintf(stderr, "tfjs-wm bootstrap: %s\n", what.c_str());
}

// A connection that has not yet proved it belongs to the group.
struct Pending {
  int fd;
  std::string challenge;
  net::Deadline deadline;
  std::string who;
};

// Accepts connections until `want` of them are authenticated (verify returns
// true), each stranger bounded by kHandshakeMs and kMaxHandshakeBytes and
// dropped with a report; the group's own deadline bounds the whole wait.
// verify(fd, message, challenge) returns false to drop the peer (a reason in
// *why), true to keep it, or throws to fail the launch (an authenticated
// rank that disagrees with the group).
template <typename Verify>
void acceptRanks(int listenFd, bool local, int want, net::Deadline deadline, Verify verify, const std::function<std::string()>& missing) {
  std::vector<Pending> pending;
  auto drop = [&](size_t i, const std::string& why) {
    report("dropped a connection from " + pending[i].who + ": " + why);
    ::close(pending[i].fd);
    pending.erase(pending.begin() + static_cast<long>(i));
  };
  struct CloseAll {
    std::vector<Pending>& p;
    ~CloseAll() {
      for (auto& x : p) ::close(x.fd);
    }
  } closeAll{pending};
  int got = 0;
  while (got < want) {
    auto now = net::Clock::now();
    if (now >= deadline) fail(missing());
    for (size_t i = pending.size(); i-- > 0;)
      if (now >= pending[i].deadline) drop(i, "it sent no valid greeting within " + std::to_string(kHandshakeMs) + " ms");
    net::Deadline wake = deadline;
    for (auto& p : pending) wake = std::min(wake, p.deadline);
    std::vector<pollfd> fds{{listenFd, POLLIN, 0}};
    for (auto& p : pending) fds.push_back({p.fd, POLLIN, 0});
    int n = ::poll(fds.data(), fds.size(), net::msLeft(wake));
    if (n < 0 && errno != EINTR) fail(std::string("bootstrap: poll: ") + std::strerror(errno));
    if (n <= 0) continue;
    // Answer the waiting strangers first: the newly accepted are not in fds.
    for (size_t i = pending.size(); i-- > 0;) {
      if (!fds[i + 1].revents) continue;
      std::string message;
      net::IoResult r = net::recvFrame(pending[i].fd, message, pending[i].deadline, net::kMaxHandshakeBytes);
      if (r == net::IoResult::Malformed) {
        drop(i, "it announced a greeting longer than " + std::to_string(net::kMaxHandshakeBytes) + " bytes");
        continue;
      }
      if (r != net::IoResult::Ok) {
        drop(i, r == net::IoResult::Closed ? "it closed the connection before greeting" : "it sent no valid greeting in time");
        continue;
      }
      std::string why;
      Pending p = pending[i];
      pending.erase(pending.begin() + static_cast<long>(i));
      bool ok = false;
      try {
        ok = verify(p.fd, message, p.challenge, &why);
      } catch (...) {
        ::close(p.fd);
        throw;
      }
      if (ok) {
        ++got;
      } else {
        report("dropped a connection from " + p.who + ": " + why);
        net::sendFrame(p.fd, "E" + why, net::deadlineIn(100));
        ::close(p.fd);
      }
    }
    if (fds[0].revents & POLLIN) {
      int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;  // the peer left before we took it
      Pending p{fd, auth::randomBytes(kChallengeBytes), net::deadlineIn(kHandshakeMs), net::describePeer(fd)};
      if (local && net::peerUid(fd) != static_cast<long>(::geteuid())) {
        report("dropped a connection from " + p.who + ": it belongs to another user");
        ::close(fd);
        continue;
      }
      if (!local) {
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
      if (net::sendFrame(fd, "C" + p.challenge, net::deadlineIn(100)) != net::IoResult::Ok) {
        ::close(fd);
        continue;
      }
      pending.push_back(std::move(p));
    }
  }
}

// A peer's side of the handshake: reads rank 0's challenge, returns it.
std::string readChallenge(int fd, net::Deadline d, const std::string& where) {
  std::string c;
  net::IoResult r = net::recvFrame(fd, c, d, net::kMaxHandshakeBytes);
  if (r != net::IoResult::Ok || c.size() != 1 + kChallengeBytes || c[0] != 'C')
    fail("createCommunicator: " + where + " did not greet like rank 0 of a tfjs-wm group");
  return c.substr(1);
}

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

std::string bootstrapUniqueId(const std::string& host, int port, const std::string& nonceIn, const std::string& secretHex) {
  std::string nonce = nonceIn.empty() ? auth::toHex(auth::randomBytes(8)) : nonceIn;
  WM_REQUIRE(nonce.find_first_of(": \n") == std::string::npos, "getUniqueId: the run id may not hold ':', spaces or newlines");
  std::string secret = secretHex.empty() ? auth::toHex(auth::randomBytes(kSecretBytes)) : secretHex;
  WM_REQUIRE(auth::fromHex(secret, "the group secret").size() >= 16, "the group secret must be at least 16 bytes (32 hex digits)");
  Listener l;
  l.localName = "tfjs-wm-" + auth::toHex(auth::randomBytes(16));
  int bound = 0;
  l.tcp = net::listenTcp(host, port, &bound);
  try {
    l.local = net::listenAbstractUnix(l.localName);
  } catch (...) {
    ::close(l.tcp);
    throw;
  }
  std::lock_guard<std::mutex> lock(registryMu);
  auto old = registry.find(nonce);
  if (old != registry.end()) {
    ::close(old->second.tcp);
    ::close(old->second.local);
  }
  registry[nonce] = l;
  return host + ":" + std::to_string(bound) + ":" + nonce + ":" + secret;
}

struct Bootstrap::Impl {
  std::vector<int> tcp;    // rank 0: one per peer (index = rank); peers: [0] = rank 0
  std::vector<int> local;  // same, Unix sockets (same-host groups)
  uint32_t seq = 0;
  std::string broken;  // set after a failed collective
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
  WM_REQUIRE(size >= 1 && size <= kMaxRanks,
             "createCommunicator: size must be in [1, " + std::to_string(kMaxRanks) + "] ranks, got " + std::to_string(size));
  if (rank == 0) {
    // Rank 0 holds two sockets per other rank: refuse now rather than fail accepting rank 1,000.
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
      const uint64_t need = 2 * static_cast<uint64_t>(size - 1) + 64;
      WM_REQUIRE(need <= lim.rlim_cur, "createCommunicator: size " + std::to_string(size) + " needs about " + std::to_string(need) +
                                           " open descriptors at rank 0; this process may open " + std::to_string(lim.rlim_cur) +
                                           " (raise it with ulimit -n)");
    }
  }
  WM_REQUIRE(rank >= 0 && rank < size, "createCommunicator: rank " + std::to_string(rank) + " is not in [0, " + std::to_string(size) + ")");
  WM_REQUIRE(timeoutMs > 0, "createCommunicator: timeoutMs must be positive");
  ParsedId id = parseId(uniqueId);
  impl_->nonce = id.nonce;
  impl_->tcp.assign(size, -1);
  impl_->local.assign(size, -1);
  host_ = net::hostName();
  const std::string& me = host_;
  const std::string& secret = id.secret;
  if (rank == 0) {
    Listener l;
    {
      std::lock_guard<std::mutex> lock(registryMu);
      auto it = registry.find(id.nonce);
      WM_REQUIRE(it != registry.end(), "createCommunicator: rank 0 must use a uniqueId made by getUniqueId() in this process");
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
    std::vector<std::string> hosts(size), peerChallenges(size);
    hosts[0] = me;
    auto missingRanks = [&](const std::vector<int>& fds) {
      std::string missing;
      for (int r = 1; r < size; ++r)
        if (fds[r] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      return missing;
    };
    // Hello: "tfjs-wm <nonce> <rank> <size> <host> <peer challenge hex> <proof>".
    auto verifyHello = [&](int fd, const std::string& hello, const std::string& challenge, std::string* why) {
      size_t cut = hello.rfind(' ');
      if (cut == std::string::npos) return *why = "its greeting is not a tfjs-wm hello", false;
      std::string fields = hello.substr(0, cut);
      if (!auth::equalDigests(hello.substr(cut + 1), proof(secret, "hello", challenge, fields)))
        return *why = "it failed authentication (it does not know the group's secret)", false;
      std::istringstream in(fields);
      std::string magic, nonce, host, peerChallenge;
      int r = -1, s = -1;
      in >> magic >> nonce >> r >> s >> host >> peerChallenge;
      if (magic != "tfjs-wm" || nonce != id.nonce || host.empty() || peerChallenge.size() != 2 * kChallengeBytes)
        return *why = "its authenticated greeting is for another group", false;
      std::string err;
      if (s != size)
        err = "rank " + std::to_string(r) + " says the group has " + std::to_string(s) + " ranks, rank 0 says " + std::to_string(size);
      else if (r <= 0 || r >= size)
        err = "a process joined as rank " + std::to_string(r) + ", not in [1, " + std::to_string(size) + ")";
      else if (impl_->tcp[r] >= 0)
        err = "two processes joined as rank " + std::to_string(r);
      if (!err.empty()) {
        net::sendFrame(fd, "E" + err, deadline);
        for (int q = 1; q < size; ++q)
          if (impl_->tcp[q] >= 0) net::sendFrame(impl_->tcp[q], "E" + err, deadline);
        fail("createCommunicator: " + err);
      }
      impl_->tcp[r] = fd;
      hosts[r] = host;
      peerChallenges[r] = peerChallenge;
      return true;
    };
    acceptRanks(l.tcp, false, size - 1, deadline, verifyHello, [&] {
      return "createCommunicator: rank(s) " + missingRanks(impl_->tcp) + " did not join within " + std::to_string(timeoutMs) + " ms";
    });
    for (int r = 1; r < size; ++r) sameHost_ = sameHost_ && hosts[r] == me;
    // Welcome: rank 0 proves itself too, so a rank never talks to an impostor
    // that took rank 0's port first.
    for (int r = 1; r < size; ++r) {
      std::string fields = std::string(sameHost_ ? "1" : "0") + " " + l.localName;
      net::sendFrame(impl_->tcp[r], "K" + fields + " " + proof(secret, "welcome", peerChallenges[r], fields), deadline);
    }
    if (sameHost_) {
      // Local answer: "<rank> <proof>", after the kernel vouched for the uid.
      auto verifyLocal = [&](int fd, const std::string& answer, const std::string& challenge, std::string* why) {
        size_t cut = answer.find(' ');
        std::string rank = answer.substr(0, cut);
        if (cut == std::string::npos || !auth::equalDigests(answer.substr(cut + 1), proof(secret, "local", challenge, rank)))
          return *why = "it failed authentication on the local socket", false;
        int r = std::atoi(rank.c_str());
        if (r <= 0 || r >= size || impl_->local[r] >= 0) return *why = "it claimed rank " + rank + " twice", false;
        impl_->local[r] = fd;
        return true;
      };
      acceptRanks(l.local, true, size - 1, deadline, verifyLocal, [&] {
        return "createCommunicator: rank(s) " + missingRanks(impl_->local) + " did not open the local socket within " +
               std::to_string(timeoutMs) + " ms";
      });
    }
  } else {
    auto deadline = net::deadlineIn(timeoutMs);
    const std::string where = "rank 0 at " + id.host + ":" + std::to_string(id.port);
    int fd = net::connectTcp(id.host, id.port, deadline);
    if (fd < 0)
      fail("createCommunicator: rank " + std::to_string(rank) + " could not reach " + where + " within " + std::to_string(timeoutMs) +
           " ms");
    impl_->tcp[0] = fd;
    auto late = net::deadlineIn(timeoutMs + kGraceMs);
    std::string challenge = readChallenge(fd, late, where);
    std::string mine = auth::randomBytes(kChallengeBytes);
    std::ostringstream hello;
    hello << "tfjs-wm " << id.nonce << " " << rank << " " << size << " " << me << " " << auth::toHex(mine);
    std::string welcome;
    if (net::sendFrame(fd, hello.str() + " " + proof(secret, "hello", challenge, hello.str()), late) != IoResult::Ok ||
        net::recvFrame(fd, welcome, late, net::kMaxHandshakeBytes) != IoResult::Ok)
      fail("createCommunicator: " + where + " did not accept rank " + std::to_string(rank) + " within " + std::to_string(timeoutMs) +
           " ms");
    if (welcome.empty() || welcome[0] == 'E') fail("createCommunicator: " + where + ": " + welcome.substr(1));
    size_t cut = welcome.rfind(' ');
    std::string fields = cut == std::string::npos ? "" : welcome.substr(1, cut - 1);
    if (welcome[0] != 'K' || cut == std::string::npos ||
        !auth::equalDigests(welcome.substr(cut + 1), proof(secret, "welcome", auth::toHex(mine), fields)))
      fail("createCommunicator: the process at " + id.host + ":" + std::to_string(id.port) +
           " failed authentication as rank 0 (it does not know the group's secret)");
    sameHost_ = fields[0] == '1';
    if (sameHost_) {
      std::string localName = fields.substr(2);
      int u = net::connectAbstractUnix(localName, late);
      if (u < 0) fail("createCommunicator: could not open rank 0's local socket");
      impl_->local[0] = u;
      if (net::peerUid(u) != static_cast<long>(::geteuid())) fail("createCommunicator: rank 0's local socket belongs to another user");
      std::string localChallenge = readChallenge(u, late, "rank 0's local socket");
      std::string r = std::to_string(rank);
      net::sendFrame(u, r + " " + proof(secret, "local", localChallenge, r), late);
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
        error = what + ": rank " + std::to_string(r) +
                (res == IoResult::Closed      ? " disconnected (it exited or was killed)"
                 : res == IoResult::Malformed ? " sent a frame longer than " + std::to_string(net::kMaxFrameBytes) + " bytes"
                                              : " did not arrive in time");
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
    std::string remote;
    IoResult r = net::recvFds(impl_->local[0], got, late, &remote);
    if (!remote.empty()) failWith(remote);  // rank 0 names the rank that failed
    if (r == IoResult::Closed) failWith(what + ": rank 0 disconnected (it exited or was killed)");
    if (r != IoResult::Ok || static_cast<int>(got.size()) != size_) {
      for (int fd : got)
        if (fd >= 0) ::close(fd);
      failWith(what + ": rank 0 did not send the descriptors");
    }
    all = got;
    if (all[rank_] >= 0) ::close(all[rank_]);
    all[rank_] = dupOwn();
    return all;
  }
  all[0] = mine;
  std::vector<int> received(size_, -1);
  for (int r = 1; r < size_; ++r) {
    std::vector<int> one;
    IoResult res = net::recvFds(impl_->local[r], one, late);
    if (res != IoResult::Ok || one.size() != 1) {
      for (int fd : one)
        if (fd >= 0) ::close(fd);
      for (int fd : received)
        if (fd >= 0) ::close(fd);
      all.assign(size_, -1);
      std::string msg = what + ": rank " + std::to_string(r) +
                        (res == IoResult::Closed     ? " disconnected (it exited or was killed)"
                         : res == IoResult::TimedOut ? " did not send its descriptor within " + std::to_string(timeoutMs_) + " ms"
                                                     : " sent a malformed descriptor message");
      // The other ranks wait on rank 0 for the descriptors: tell them who failed.
      auto now = net::deadlineIn(1000);
      for (int q = 1; q < size_; ++q)
        if (q != r) net::sendFdsError(impl_->local[q], msg, now);
      failWith(msg);
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
