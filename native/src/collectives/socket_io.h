// Socket helpers with deadlines: every wait is bounded, and a closed peer
// is reported as such, not as a hang.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace wm {
namespace net {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

inline Deadline deadlineIn(int64_t ms) { return Clock::now() + std::chrono::milliseconds(ms); }
int msLeft(Deadline d);

// Malformed: the peer broke the protocol (a frame or descriptor count past
// its bound); the connection is no longer usable.
enum class IoResult { Ok, Closed, TimedOut, Malformed };

// The largest frame an authenticated rank may send (allgathers of rows on the
// CPU path), and the largest an unauthenticated peer may announce.
constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 34;
constexpr uint64_t kMaxHandshakeBytes = 4096;
// At most this many descriptors travel in one message.
constexpr uint32_t kMaxFds = 1024;

IoResult sendAll(int fd, const void* data, size_t len, Deadline d);
IoResult recvAll(int fd, void* data, size_t len, Deadline d);

// Length-prefixed frames.
IoResult sendFrame(int fd, const std::string& payload, Deadline d);
// Frames longer than maxBytes are refused (Malformed) before anything is
// allocated; the payload grows as its bytes arrive, not by the announced size.
IoResult recvFrame(int fd, std::string& payload, Deadline d, uint64_t maxBytes = kMaxFrameBytes);

// Descriptor passing over a Unix socket (SCM_RIGHTS); -1 entries travel as
// "no descriptor". Instead of descriptors a sender may pass an error, which
// recvFds returns in *remoteError (the descriptors' waiters learn who failed).
IoResult sendFds(int sock, const std::vector<int>& fds, Deadline d);
IoResult sendFdsError(int sock, const std::string& error, Deadline d);
// Counts are checked against the bytes and descriptors that arrived: a lying
// peer gets Malformed, and every descriptor it sent is closed.
IoResult recvFds(int sock, std::vector<int>& fds, Deadline d, std::string* remoteError = nullptr);

int listenTcp(const std::string& host, int port, int* boundPort);
int connectTcp(const std::string& host, int port, Deadline d);  // retries until d
int listenAbstractUnix(const std::string& name);
int connectAbstractUnix(const std::string& name, Deadline d);

std::string hostName();
// The uid of a Unix socket's peer (SO_PEERCRED), -1 if unknown.
long peerUid(int fd);
// "127.0.0.1:51234", "local pid 123 uid 1000": who is at the other end, for reports.
std::string describePeer(int fd);

}  // namespace net
}  // namespace wm
