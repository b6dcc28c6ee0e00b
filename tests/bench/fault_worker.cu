// wl_fault_worker: `warplens worker` with one kernel more, faults/illegal_address, whose stores
// land 4 TiB past its buffer. A run of it kills the worker's CUDA context with a sticky
// illegal-address error, as a buggy kernel would; the worker-fault benchmark sends it such runs
// (wl_fault_proxy rewrites a run request) to see the GUI survive a worker that must exit.

#include "common.h"
#include "engine/worker.h"
#include "launch.cuh"
#include "registry.h"

#include <cstdio>
#include <exception>

namespace wl {
namespace {

constexpr std::int64_t kFarPastTheBuffer = std::int64_t{1} << 40; // no page is mapped there

__global__ void store_out_of_bounds(float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i + kFarPastTheBuffer] = 1.0f;
}

KernelDesc illegal_address() {
  KernelDesc k;
  k.id = "faults/illegal_address";
  k.title = "Stores outside its buffer (test only)";
  k.lesson = "Test only: every store lands 4 TiB past the buffer, so the launch faults.";
  k.params = {{"n", "elements", 1 << 20, 1, 1 << 24, {}, true}};
  k.default_block = {256, 1, 1};
  k.block_presets = {{256, 1, 1}};
  k.allowed_blocks = "any 1D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_1d_block(b); };
  k.grid = [](const Params& p, const BlockShape& b, int) { return common::grid_1d(p.at("n"), b); };
  k.buffers = {
      {"out", ElementType::f32, BufferRole::output, [](const Params& p) { return p.at("n"); }}};
  k.reference = [](const HostBuffers&, const Params& p) {
    Expected e;
    e.values = {HostBuffer{ElementType::f32, Words(static_cast<std::size_t>(p.at("n")))}};
    return e;
  };
  k.bytes_moved = [](const Params& p) { return 4.0 * static_cast<double>(p.at("n")); };
  k.sites = {{"store out", MemorySpace::global, AccessOp::store, 0, common::fixed_width(4),
              common::single_iteration(), [](const LaunchShape& s) -> LaneOffsets {
                return [n = s.param("n"), block_x = s.block.x](Coord b, Coord t, std::int64_t) {
                  const std::int64_t i = std::int64_t{b.x} * block_x + t.x;
                  return i < n ? std::optional(i * 4) : std::nullopt;
                };
              }}};
  k.test_sizes = {{{"n", 1024}}};
  k.function = [](const Params&) { return reinterpret_cast<const void*>(store_out_of_bounds); };
  k.symbol = [](const Params&) { return std::string("wl::store_out_of_bounds"); };
  k.launch = [](const DeviceLaunch& l) {
    store_out_of_bounds<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<float>(l, 0), l.shape.param("n"));
  };
  return k;
}

} // namespace
} // namespace wl

int main() {
  try {
    wl::add_kernels_for_testing({wl::illegal_address()});
    return wl::run_worker();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wl_fault_worker: %s\n", e.what());
    return 1;
  }
}
