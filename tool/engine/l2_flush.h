#pragma once
// Empties the L2 cache before a timing sample or a counter pass. Reading a clean buffer twice
// the size of L2 evicts everything, and the write-back of dirty lines happens during the flush,
// not during the kernel measured next (a memset would leave L2 full of dirty lines whose
// write-back lands in the next kernel's DRAM-write counter).

#include "engine/library.h"

#include <cstddef>

namespace wl {

class L2Flusher {
public:
  L2Flusher(); // sized from the current device's L2
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  void flush(void* stream); // a cudaStream_t; enqueued, not waited for

private:
  float* m_buffer = nullptr;
  float* m_sink = nullptr;
  std::size_t m_floats = 0;
};

} // namespace wl
