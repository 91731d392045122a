#include "collectives/socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "wm/status.h"

namespace wm {
namespace net {

int msLeft(Deadline d) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(d - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left > 0x7fffffff ? 0x7fffffff : left);
}

static bool waitFor(int fd, short events, Deadline d) {
  for (;;) {
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, msLeft(d));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) fail(std::string("poll: ") + std::strerror(errno));
  }
}

IoResult sendAll(int fd, const void* data, size_t len, Deadline d) {
  auto p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (!waitFor(fd, POLLOUT, d)) return IoResult::TimedOut;
      continue;
    }
    return IoResult::Closed;  // EPIPE, ECONNRESET: the peer is gone
  }
  return IoResult::Ok;
}

IoResult recvAll(int fd, void* data, size_t len, Deadline d) {
  auto p = static_cast<char*>(data);
  while (len > 0) {
    ssize_t n = ::recv(fd, p, len, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return IoResult::Closed;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      if (!waitFor(fd, POLLIN, d)) return IoResult::TimedOut;
      continue;
    }
    return IoResult::Closed;
  }
  return IoResult::Ok;
}

IoResult sendFrame(int fd, const std::string& payload, Deadline d) {
  uint64_t n = payload.size();
  IoResult r = sendAll(fd, &n, sizeof n, d);
  return r == IoResult::Ok ? sendAll(fd, payload.data(), payload.size(), d) : r;
}

IoResult recvFrame(int fd, std::string& payload, Deadline d, uint64_t maxBytes) {
  uint64_t n = 0;
  IoResult r = recvAll(fd, &n, sizeof n, d);
  if (r != IoResult::Ok) return r;
  if (n > maxBytes) return IoResult::Malformed;
  // Grow as bytes arrive: an announced length costs nothing until it is sent.
  constexpr uint64_t kStep = uint64_t{64} << 20;
  payload.clear();
  while (payload.size() < n) {
    size_t have = payload.size();
    size_t take = static_cast<size_t>(std::min<uint64_t>(kStep, n - have));
    payload.resize(have + take);
    r = recvAll(fd, &payload[have], take, d);
    if (r != IoResult::Ok) return r;
  }
  return IoResult::Ok;
}

namespace {

// A descriptor message: count (or kErrorCount), then a presence byte per
// descriptor (or the error text), descriptors as SCM_RIGHTS.
constexpr uint32_t kErrorCount = 0xffffffffu;
constexpr size_t kMaxFdsBody = sizeof(uint32_t) + 4096;

IoResult sendMessage(int sock, const std::vector<char>& body, const std::vector<int>& real, Deadline d) {
  iovec iov{const_cast<char*>(body.data()), body.size()};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * (real.empty() ? 1 : real.size())));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!real.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * real.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * real.size());
    std::memcpy(CMSG_DATA(c), real.data(), sizeof(int) * real.size());
  }
  for (;;) {
    ssize_t n = ::sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == static_cast<ssize_t>(body.size())) return IoResult::Ok;
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!waitFor(sock, POLLOUT, d)) return IoResult::TimedOut;
      continue;
    }
    return IoResult::Closed;
  }
}

}  // namespace

IoResult sendFds(int sock, const std::vector<int>& fds, Deadline d) {
  if (fds.size() > kMaxFds) fail("bootstrap: at most " + std::to_string(kMaxFds) + " descriptors per message");
  std::vector<int> real;
  uint32_t count = static_cast<uint32_t>(fds.size());
  std::vector<char> body(sizeof count + fds.size());
  std::memcpy(body.data(), &count, sizeof count);
  for (size_t i = 0; i < fds.size(); ++i) {
    body[sizeof count + i] = fds[i] >= 0;
    if (fds[i] >= 0) real.push_back(fds[i]);
  }
  return sendMessage(sock, body, real, d);
}

IoResult sendFdsError(int sock, const std::string& error, Deadline d) {
  std::string text = error.substr(0, kMaxFdsBody - sizeof(uint32_t));
  std::vector<char> body(sizeof(uint32_t) + text.size());
  std::memcpy(body.data(), &kErrorCount, sizeof kErrorCount);
  std::memcpy(body.data() + sizeof(uint32_t), text.data(), text.size());
  return sendMessage(sock, body, {}, d);
}

IoResult recvFds(int sock, std::vector<int>& fds, Deadline d, std::string* remoteError) {
  std::vector<char> body(kMaxFdsBody);
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxFds));
  iovec iov{body.data(), body.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n;
  for (;;) {
    n = ::recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n > 0) break;
    if (n == 0) return IoResult::Closed;
    if (errno == EAGAIN || errno == EINTR) {
      if (!waitFor(sock, POLLIN, d)) return IoResult::TimedOut;
      continue;
    }
    return IoResult::Closed;
  }
  // Every descriptor that arrived is ours to close until it is handed out.
  std::vector<int> real;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(0)) {
      size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const int* p = reinterpret_cast<const int*>(CMSG_DATA(c));
      real.insert(real.end(), p, p + k);
    }
  }
  auto refuse = [&] {
    for (int fd : real) ::close(fd);
    return IoResult::Malformed;
  };
  if (n < static_cast<ssize_t>(sizeof(uint32_t)) || (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) return refuse();
  uint32_t count = 0;
  std::memcpy(&count, body.data(), sizeof count);
  if (count == kErrorCount) {
    if (remoteError) remoteError->assign(body.data() + sizeof count, static_cast<size_t>(n) - sizeof count);
    refuse();
    return IoResult::Closed;
  }
  size_t present = 0;
  if (count > kMaxFds || static_cast<size_t>(n) != sizeof count + count) return refuse();
  for (uint32_t i = 0; i < count; ++i) present += body[sizeof count + i] != 0;
  if (present != real.size()) return refuse();
  fds.assign(count, -1);
  size_t next = 0;
  for (uint32_t i = 0; i < count; ++i)
    if (body[sizeof count + i]) fds[i] = real[next++];
  return IoResult::Ok;
}

static sockaddr_in resolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int e = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (e != 0 || !res) fail("bootstrap: cannot resolve host \"" + host + "\": " + gai_strerror(e));
  sockaddr_in a = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
  ::freeaddrinfo(res);
  a.sin_port = htons(static_cast<uint16_t>(port));
  return a;
}

int listenTcp(const std::string& host, int port, int* boundPort) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a = resolve(host, port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1024) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    fail("bootstrap: cannot listen on " + host + ":" + std::to_string(port) + ": " + why);
  }
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *boundPort = ntohs(a.sin_port);
  return fd;
}

int connectTcp(const std::string& host, int port, Deadline d) {
  sockaddr_in a = resolve(host, port);
  std::string last;
  do {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail(std::string("socket: ") + std::strerror(errno));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    last = std::strerror(errno);
    ::close(fd);
    // Rank 0 may not be listening yet.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (Clock::now() < d);
  return -1;
}

static sockaddr_un abstractAddr(const std::string& name, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  // Abstract namespace: leading NUL, no file on disk, gone with the socket.
  size_t n = std::min(name.size(), sizeof(a.sun_path) - 2);
  std::memcpy(a.sun_path + 1, name.data(), n);
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return a;
}

int listenAbstractUnix(const std::string& name) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail(std::string("socket(AF_UNIX): ") + std::strerror(errno));
  socklen_t len;
  sockaddr_un a = abstractAddr(name, &len);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 1024) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    fail("bootstrap: cannot listen on the local socket: " + why);
  }
  return fd;
}

int connectAbstractUnix(const std::string& name, Deadline d) {
  socklen_t len;
  sockaddr_un a = abstractAddr(name, &len);
  do {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail(std::string("socket(AF_UNIX): ") + std::strerror(errno));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), len) == 0) return fd;
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (Clock::now() < d);
  return -1;
}

long peerUid(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  return static_cast<long>(cred.uid);
}

std::string describePeer(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0 && a.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&a);
    char ip[INET_ADDRSTRLEN] = {0};
    ::inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
    return std::string(ip) + ":" + std::to_string(ntohs(in->sin_port));
  }
  ucred cred{};
  socklen_t clen = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0)
    return "local pid " + std::to_string(cred.pid) + " uid " + std::to_string(cred.uid);
  return "an unknown peer";
}

std::string hostName() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace net
}  // namespace wm
