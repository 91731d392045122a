// wm_veth_pair NS_A NS_B NAME_A NAME_B ADDR_A ADDR_B: joins two network namespaces (files a namespace is
// bound to, as `unshare --net=FILE` leaves them) by a veth pair, end NAME_A in NS_A and NAME_B in NS_B, gives
// each end its IPv4 address (a.b.c.d/prefix) and brings both ends and each namespace's loopback up. What
// `ip link add ... type veth peer ...`, `ip addr add` and `ip link set up` do, through rtnetlink, for the
// two-host test harness (test/two_hosts.ts) on machines without iproute2. Needs CAP_NET_ADMIN (root).
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what, int err = errno) {
  std::fprintf(stderr, "wm_veth_pair: %s: %s\n", what.c_str(), std::strerror(err));
  std::exit(1);
}

// One rtnetlink request: a header, a fixed part, then attributes (nested ones closed in order).
class Request {
 public:
  Request(uint16_t type, uint16_t flags, const void* fixed, size_t fixedLen) {
    nlmsghdr h{};
    h.nlmsg_type = type;
    h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
    h.nlmsg_seq = 1;
    append(&h, sizeof h);
    append(fixed, fixedLen);
  }
  void attr(uint16_t type, const void* data, size_t len) {
    rtattr a{};
    a.rta_type = type;
    a.rta_len = static_cast<uint16_t>(RTA_LENGTH(len));
    append(&a, sizeof a);
    append(data, len);
  }
  void attr(uint16_t type, const std::string& s) { attr(type, s.c_str(), s.size() + 1); }
  void attr(uint16_t type, uint32_t v) { attr(type, &v, sizeof v); }
  size_t open(uint16_t type) {
    const size_t at = buf_.size();
    attr(type, nullptr, 0);
    return at;
  }
  void close(size_t at) { reinterpret_cast<rtattr*>(buf_.data() + at)->rta_len = static_cast<uint16_t>(buf_.size() - at); }
  // Appends raw bytes inside an open attribute (the veth peer's ifinfomsg).
  void raw(const void* data, size_t len) { append(data, len); }

  // Sends on a fresh socket of the calling thread's network namespace and waits for the kernel's answer.
  void send(const std::string& what) {
    reinterpret_cast<nlmsghdr*>(buf_.data())->nlmsg_len = static_cast<uint32_t>(buf_.size());
    const int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) fail("netlink socket");
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd, buf_.data(), buf_.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0) fail(what + ": send");
    char reply[8192];
    const ssize_t n = recv(fd, reply, sizeof reply, 0);
    if (n < 0) fail(what + ": receive");
    ::close(fd);
    const auto* h = reinterpret_cast<const nlmsghdr*>(reply);
    if (n < static_cast<ssize_t>(sizeof(nlmsghdr)) || h->nlmsg_type != NLMSG_ERROR) fail(what + ": no acknowledgement", EPROTO);
    const int err = -reinterpret_cast<const nlmsgerr*>(NLMSG_DATA(h))->error;
    if (err != 0) fail(what, err);
  }

 private:
  void append(const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    buf_.insert(buf_.end(), p, p + len);
    buf_.resize(NLMSG_ALIGN(buf_.size()));
  }
  std::vector<uint8_t> buf_;
};

int openNamespace(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(std::string("open ") + path);
  return fd;
}

void linkUp(const std::string& name) {
  ifinfomsg info{};
  info.ifi_family = AF_UNSPEC;
  info.ifi_index = static_cast<int>(if_nametoindex(name.c_str()));
  if (info.ifi_index == 0) fail("no link " + name);
  info.ifi_flags = IFF_UP;
  info.ifi_change = IFF_UP;
  Request r(RTM_NEWLINK, 0, &info, sizeof info);
  r.send("set " + name + " up");
}

void addAddress(const std::string& name, const std::string& cidr) {
  const size_t slash = cidr.find('/');
  if (slash == std::string::npos) fail("address " + cidr + " must be a.b.c.d/prefix", EINVAL);
  in_addr addr{};
  if (inet_pton(AF_INET, cidr.substr(0, slash).c_str(), &addr) != 1) fail("address " + cidr + " is not IPv4", EINVAL);
  const int prefix = std::atoi(cidr.c_str() + slash + 1);
  if (prefix < 1 || prefix > 32) fail("address " + cidr + ": the prefix must be in [1, 32]", EINVAL);
  ifaddrmsg msg{};
  msg.ifa_family = AF_INET;
  msg.ifa_prefixlen = static_cast<uint8_t>(prefix);
  msg.ifa_index = if_nametoindex(name.c_str());
  if (msg.ifa_index == 0) fail("no link " + name);
  Request r(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &msg, sizeof msg);
  r.attr(IFA_LOCAL, &addr, sizeof addr);
  r.attr(IFA_ADDRESS, &addr, sizeof addr);
  r.send("add " + cidr + " to " + name);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: wm_veth_pair NS_A NS_B NAME_A NAME_B ADDR_A/PREFIX ADDR_B/PREFIX\n");
    return 2;
  }
  const int ns[2] = {openNamespace(argv[1]), openNamespace(argv[2])};
  const std::string names[2] = {argv[3], argv[4]}, addrs[2] = {argv[5], argv[6]};
  for (const auto& n : names)
    if (n.empty() || n.size() >= IFNAMSIZ)
      fail("link name '" + n + "' must have 1 to " + std::to_string(IFNAMSIZ - 1) + " characters", EINVAL);
  // The pair, made here and placed in the two namespaces.
  ifinfomsg info{};
  info.ifi_family = AF_UNSPEC;
  Request r(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &info, sizeof info);
  r.attr(IFLA_IFNAME, names[0]);
  r.attr(IFLA_NET_NS_FD, static_cast<uint32_t>(ns[0]));
  const size_t linkInfo = r.open(IFLA_LINKINFO);
  r.attr(IFLA_INFO_KIND, std::string("veth"));
  const size_t data = r.open(IFLA_INFO_DATA);
  const size_t peer = r.open(VETH_INFO_PEER);
  ifinfomsg peerInfo{};
  peerInfo.ifi_family = AF_UNSPEC;
  r.raw(&peerInfo, sizeof peerInfo);
  r.attr(IFLA_IFNAME, names[1]);
  r.attr(IFLA_NET_NS_FD, static_cast<uint32_t>(ns[1]));
  r.close(peer);
  r.close(data);
  r.close(linkInfo);
  r.send("make veth pair " + names[0] + " / " + names[1]);
  // Each end's address and state, from inside its namespace.
  for (int i = 0; i < 2; ++i) {
    if (setns(ns[i], CLONE_NEWNET) != 0) fail("enter the namespace of " + names[i]);
    addAddress(names[i], addrs[i]);
    linkUp(names[i]);
    linkUp("lo");
  }
  return 0;
}
