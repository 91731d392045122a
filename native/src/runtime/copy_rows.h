// Rows moved between two device-addressed buffers by row lists: the distributed tables' exchanges pack
// and unpack rows with it, the row cache fills its slots and writes them back.
#pragma once
#include <cstdint>

namespace wm {

// dst row (dstRow ? dstRow[j] : j) = src row (srcRow ? srcRow[j] : j) for j < n, rows of rowBytes bytes
// (a multiple of 2), in the widest words the row size and both bases allow; queued on the stream.
void copyRows(uint64_t src, const int32_t* srcRow, uint64_t dst, const int32_t* dstRow, int64_t n, int64_t rowBytes);

}  // namespace wm
