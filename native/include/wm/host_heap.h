// How the process's malloc keeps blocks between host kernel outputs (host_heap.cc).
#pragma once

namespace wm {
namespace host {

// Keeps blocks up to 32 MiB in the heap and its free top up to 1 GiB (glibc), unless WM_HOST_HEAP=system;
// true when the settings took. Throws on a WM_HOST_HEAP other than 'reuse' or 'system'.
bool keepBlocksInHeap();

}  // namespace host
}  // namespace wm
