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

enum class IoResult { Ok, Closed, TimedOut };

IoResult sendAll(int fd, const void* data, size_t len, Deadline d);
IoResult recvAll(int fd, void* data, size_t len, Deadline d);

// Length-prefixed frames.
IoResult sendFrame(int fd, const std::string& payload, Deadline d);
IoResult recvFrame(int fd, std::string& payload, Deadline d);

// Descriptor passing over a Unix socket (SCM_RIGHTS); -1 entries travel as
// "no descriptor".
IoResult sendFds(int sock, const std::vector<int>& fds, Deadline d);
IoResult recvFds(int sock, std::vector<int>& fds, Deadline d);

int listenTcp(const std::string& host, int port, int* boundPort);
int connectTcp(const std::string& host, int port, Deadline d);  // retries until d
int listenAbstractUnix(const std::string& name);
int connectAbstractUnix(const std::string& name, Deadline d);
int acceptBefore(int listenFd, Deadline d);  // -1 on timeout

std::string hostName();

}  // namespace net
}  // namespace wm
