#include "wm/cpu_binding.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

#ifdef __linux__
#include <dirent.h>
#include <sched.h>
#endif

#include "wm/status.h"

namespace wm {
namespace {

bool readLine(const std::string& path, std::string& out) {
  std::ifstream f(path);
  if (!f) return false;
  std::getline(f, out);
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return true;
}

// sysfs names PCI devices "dddd:bb:dd.f" in lower case; CUDA may give the domain in 8 digits, in upper case.
std::string sysfsBusId(const std::string& busId) {
  std::string s;
  for (char c : busId) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t colon = s.find(':');
  if (colon != std::string::npos && s.find(':', colon + 1) != std::string::npos) {
    const unsigned long domain = std::strtoul(s.substr(0, colon).c_str(), nullptr, 16);
    char head[16];
    std::snprintf(head, sizeof(head), "%04lx", domain);
    s = head + s.substr(colon);
  }
  return s;
}

std::vector<int> intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// The CPUs local to a GPU, cut to `allowed`; all of `allowed` when sysfs says nothing usable.
std::vector<int> gpuLocalCpus(const std::string& busId, const std::vector<int>& allowed, const std::string& sysRoot) {
  std::string text;
  if (busId.empty() || !readLine(sysRoot + "/bus/pci/devices/" + sysfsBusId(busId) + "/local_cpulist", text)) return allowed;
  std::vector<int> local;
  try {
    local = intersect(parseCpuList(text, "local_cpulist of GPU " + busId), allowed);
  } catch (const std::exception&) {
    return allowed;
  }
  return local.empty() ? allowed : local;
}

}  // namespace

CpuBindMode cpuBindModeFromEnv() {
  const char* v = std::getenv("WM_CPU_BIND");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "none") == 0) return CpuBindMode::None;
  if (std::strcmp(v, "numa") == 0) return CpuBindMode::Numa;
  if (std::strcmp(v, "cores") == 0) return CpuBindMode::Cores;
  fail(std::string("environment: WM_CPU_BIND must be none, numa or cores, got '") + v + "'");
}

std::vector<int> parseCpuList(const std::string& text, const std::string& what) {
  std::vector<int> cpus;
  std::stringstream in(text);
  std::string part;
  auto bad = [&]() { fail(what + ": '" + text + "' is not a CPU list (like 0-3,8)"); };
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    const size_t dash = part.find('-');
    auto number = [&](const std::string& s) {
      if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) bad();
      return std::atoi(s.c_str());
    };
    const int first = number(part.substr(0, dash));
    const int last = dash == std::string::npos ? first : number(part.substr(dash + 1));
    if (last < first) bad();
    for (int c = first; c <= last; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string formatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> allowedCpus() {
  std::vector<int> cpus;
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
  if (cpus.empty())
    for (int c = 0; c < static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); ++c) cpus.push_back(c);
  return cpus;
}

std::vector<std::vector<int>> physicalCores(const std::vector<int>& cpus, const std::string& sysRoot) {
  std::map<std::pair<std::string, std::string>, std::vector<int>> byCore;
  std::vector<std::pair<std::string, std::string>> order;
  for (int c : cpus) {
    const std::string dir = sysRoot + "/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    std::string package, core;
    std::pair<std::string, std::string> key;
    if (readLine(dir + "physical_package_id", package) && readLine(dir + "core_id", core))
      key = {package, core};
    else
      key = {"cpu", std::to_string(c)};  // no topology: a core of its own
    auto [it, fresh] = byCore.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(c);
  }
  std::vector<std::vector<int>> cores;
  for (const auto& key : order) cores.push_back(byCore[key]);
  return cores;
}

std::vector<int> coreShare(const std::vector<std::vector<int>>& cores, int k, int m) {
  WM_REQUIRE(m >= 1 && k >= 0 && k < m, "coreShare: share " + std::to_string(k) + " of " + std::to_string(m) + " does not exist");
  const int n = static_cast<int>(cores.size());
  if (n == 0) return {};
  std::vector<int> out;
  if (n < m) {
    out = cores[k % n];
  } else {
    // Shares of n / m cores, the first n % m of them one core more.
    const int base = n / m, extra = n % m;
    const int first = k * base + std::min(k, extra);
    const int count = base + (k < extra ? 1 : 0);
    for (int i = first; i < first + count; ++i) out.insert(out.end(), cores[i].begin(), cores[i].end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

CpuPlan planCpuBinding(CpuBindMode mode, const std::vector<int>& allowed, const std::vector<std::string>& localBusIds, int localRank,
                       const std::string& sysRoot) {
  if (mode == CpuBindMode::None) return {{}, "not bound (WM_CPU_BIND=none)"};
  WM_REQUIRE(localRank >= 0 && localRank < static_cast<int>(localBusIds.size()),
             "WM_CPU_BIND: local rank " + std::to_string(localRank) + " has no GPU in a list of " + std::to_string(localBusIds.size()));
  std::vector<std::vector<int>> local;
  for (const std::string& bus : localBusIds) local.push_back(gpuLocalCpus(bus, allowed, sysRoot));
  const std::vector<int>& mine = local[localRank];
  const std::string gpu = "GPU " + localBusIds[localRank];
  if (mode == CpuBindMode::Numa) return {mine, "CPUs " + formatCpuList(mine) + " (local to " + gpu + ")"};
  // The ranks whose GPUs share this rank's local CPUs split their cores.
  int k = 0, m = 0;
  for (int q = 0; q < static_cast<int>(local.size()); ++q)
    if (local[q] == mine) {
      if (q < localRank) ++k;
      ++m;
    }
  const auto cores = physicalCores(mine, sysRoot);
  std::vector<int> share = coreShare(cores, k, m);
  return {share, "CPUs " + formatCpuList(share) + " (share " + std::to_string(k + 1) + " of " + std::to_string(m) + " of the " +
                     std::to_string(cores.size()) + " cores local to " + gpu + ")"};
}

void applyCpuBinding(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  // Every thread there is now (V8's and libuv's among them); later ones inherit their creator's mask.
  std::vector<int> tids;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') tids.push_back(std::atoi(e->d_name));
    closedir(d);
  }
  if (tids.empty()) tids.push_back(0);
  for (int tid : tids)
    if (sched_setaffinity(tid, sizeof(set), &set) != 0 && errno != ESRCH)  // ESRCH: the thread has ended since
      fail("WM_CPU_BIND: binding thread " + std::to_string(tid) + " to CPUs " + formatCpuList(cpus) + " failed: " + std::strerror(errno));
#endif
}

}  // namespace wm
