// Which CPUs a GPU rank runs on (WM_CPU_BIND, set by `tfjs-wm-run --cpu-bind`): none (the
// scheduler decides), numa (the CPUs the GPU's PCI device reports as local) or cores (a share of
// those CPUs' physical cores of its own, split among the ranks of this host whose GPUs are local
// to the same CPUs). A rank's host time per launch is what small all-reduces and millisecond
// training steps wait for; ranks whose threads meet on one core, or move between cores, launch
// at different paces and the collective waits for the slowest.
//
// The plan is pure (a sysfs root in, CPU lists out) so the native tests check it on any machine;
// runtime.cu applies it once, when the process binds to its GPU.
#pragma once
#include <string>
#include <vector>

namespace wm {

enum class CpuBindMode { None, Numa, Cores };

// WM_CPU_BIND: unset or empty is none; anything but none, numa or cores is refused by name.
CpuBindMode cpuBindModeFromEnv();

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11} (sorted, unique); refuses malformed lists, naming `what`.
std::vector<int> parseCpuList(const std::string& text, const std::string& what);
// The inverse, with runs collapsed.
std::string formatCpuList(const std::vector<int>& cpus);

// The CPUs this process may run on (its affinity mask).
std::vector<int> allowedCpus();

// The physical cores of `cpus` (hyperthread siblings together: same package and core id under
// sysRoot/devices/system/cpu), in the order of their first CPU. A CPU without topology files is a
// core of its own.
std::vector<std::vector<int>> physicalCores(const std::vector<int>& cpus, const std::string& sysRoot);

// Share k of m of `cores`: contiguous runs of whole cores, as even as they can be; with fewer
// cores than shares, core k % cores.
std::vector<int> coreShare(const std::vector<std::vector<int>>& cores, int k, int m);

struct CpuPlan {
  std::vector<int> cpus;  // empty: leave the process as it is
  std::string describe;   // for logs and benchmark results
};

// The CPUs for local rank `localRank`, given the PCI bus id of the GPU each local rank drives
// (index = local rank) and the CPUs this process may use. A GPU's local CPUs come from
// sysRoot/bus/pci/devices/<bus id>/local_cpulist, cut to `allowed`; without that file, all of
// `allowed`.
CpuPlan planCpuBinding(CpuBindMode mode, const std::vector<int>& allowed, const std::vector<std::string>& localBusIds, int localRank,
                       const std::string& sysRoot);

// Binds every thread of this process to `cpus` (threads started later inherit it from their creator).
void applyCpuBinding(const std::vector<int>& cpus);

// The binding applied when this process bound to its GPU (runtime.cu), in words.
std::string cpuBinding();

}  // namespace wm
