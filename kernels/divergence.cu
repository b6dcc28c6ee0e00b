// divergence: y = f(x) where each element takes an expensive path (a chain of `work` dependent
// FMAs that also reads a weight w) or a cheap one (one multiply).
//
// The lesson: a warp issues one instruction for all its lanes; when lanes disagree on a branch,
// the warp runs both sides one after the other with the other lanes masked off. per_thread
// branches on the sign of its input, which alternates element by element, so every warp has 16
// lanes on each side and pays for both paths. per_warp sends exactly as many elements down each
// path (half of them, for n a multiple of 64), but chooses by warp index, so each warp runs one
// path with all 32 lanes. Same thread work, about half the warp instructions.
// Timings: per_warp takes about half the time of per_thread once `work` makes the FMA chain
// dominate. Counters: warp execution efficiency (thread instructions / warp instructions / 32)
// near 50 % in per_thread against near 100 % in per_warp; the divergence view shows the branch
// splitting every warp. Global memory panel: `load w` runs with 16 active lanes per request in
// per_thread (4 sectors for 2 sectors' worth of bytes) and 32 lanes on half the warps in per_warp.

#include "common.h"
#include "families.h"
#include "index/divergence.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#endif

#include <algorithm>
#include <random>

namespace wl {

#if WL_DEVICE_CODE
namespace divergence_paths {

// `work` dependent FMAs: y <- y * w + x, which converges for |w| < 1 (the init keeps |w| <= 0.5).
__device__ float expensive(float x, float w, int work) {
  float y = x;
  for (int k = 0; k < work; ++k)
    y = fmaf(y, w, x);
  return y;
}

__device__ float cheap(float x) { return 0.5f * x; }

} // namespace divergence_paths

__global__ void divergence_per_thread(const float* x, const float* w, float* y, std::int64_t n,
                                      int work) {
  const std::int64_t i = divergence::element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i >= n)
    return;
  const float xi = x[i]; // site: load x
  float yi;
  if (xi >
      0.0f) // data-dependent: the input's signs alternate, so the lanes of each warp split 16/16
    yi = divergence_paths::expensive(xi, w[i], work); // site: load w (expensive path)
  else
    yi = divergence_paths::cheap(xi);
  y[i] = yi; // site: store y
}

__global__ void divergence_per_warp(const float* x, const float* w, float* y, std::int64_t n,
                                    int work) {
  const std::int64_t i = divergence::element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i >= n)
    return;
  const float xi = x[i]; // site: load x
  float yi;
  if (divergence::warp_takes_expensive_path(i))       // the same for all 32 lanes of a warp
    yi = divergence_paths::expensive(xi, w[i], work); // site: load w (expensive path)
  else
    yi = divergence_paths::cheap(xi);
  y[i] = yi; // site: store y
}
#endif

namespace {

constexpr int kX = 0, kW = 1, kY = 2;
// Above this many FMAs the reference checks a sample of the outputs instead of all of them.
constexpr std::int64_t kFullReferenceFmas = std::int64_t{1} << 27;
constexpr std::int64_t kEdgeSample = 4096;
constexpr std::int64_t kSpreadSample = 16384;

using PathRule = bool (*)(std::int64_t element, float input);

bool sign_rule(std::int64_t, float input) { return input > 0.0f; }
bool warp_rule(std::int64_t element, float) {
  return divergence::warp_takes_expensive_path(element);
}

// Elements that take the expensive path, for n elements.
std::int64_t expensive_per_thread(std::int64_t n) { return (n + 1) / 2; }
std::int64_t expensive_per_warp(std::int64_t n) {
  return n / 64 * 32 + std::min<std::int64_t>(n % 64, 32);
}

std::vector<BufferSpec> buffers() {
  const auto n = [](const Params& p) { return p.at("n"); };
  return {{"x", ElementType::f32, BufferRole::input, n},
          {"w", ElementType::f32, BufferRole::input, n},
          {"y", ElementType::f32, BufferRole::output, n}};
}

// x: magnitude in [0.25, 1), positive on even elements; w: uniform in [-0.5, 0.5).
void init(HostBuffers& in, const Params&, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> magnitude(0.25f, 1.0f), weight(-0.5f, 0.5f);
  float* x = in[kX].f32();
  for (std::int64_t i = 0; i < in[kX].size(); ++i)
    x[i] = divergence::positive_input(i) ? magnitude(rng) : -magnitude(rng);
  float* w = in[kW].f32();
  for (std::int64_t i = 0; i < in[kW].size(); ++i)
    w[i] = weight(rng);
}

double expensive_reference(double x, double w, std::int64_t work) {
  double y = x;
  for (std::int64_t k = 0; k < work; ++k)
    y = y * w + x;
  return y;
}

// Every element when that is cheap enough; else the first and last kEdgeSample elements and about
// kSpreadSample between them, at an odd stride so both parities (both paths) are sampled.
std::vector<std::int64_t> sample(std::int64_t n, std::int64_t expensive_fmas) {
  std::vector<std::int64_t> picked;
  if (expensive_fmas <= kFullReferenceFmas || n <= 2 * kEdgeSample)
    return picked; // empty: all of them
  const std::int64_t stride = std::max<std::int64_t>(1, n / kSpreadSample) | 1;
  for (std::int64_t i = 0; i < n; ++i)
    if (i < kEdgeSample || i >= n - kEdgeSample || i % stride == 0)
      picked.push_back(i);
  return picked;
}

Expected reference(const HostBuffers& in, const Params& p, PathRule takes_expensive,
                   std::int64_t expensive_count) {
  const std::int64_t n = p.at("n"), work = p.at("work");
  Expected e{common::outputs_like(in, buffers()), sample(n, expensive_count * work), ""};
  const float* x = in[kX].f32();
  const float* w = in[kW].f32();
  float* y = e.values[kY].f32();
  const auto compute = [&](std::int64_t i) {
    y[i] = takes_expensive(i, x[i]) ? static_cast<float>(expensive_reference(x[i], w[i], work))
                                    : 0.5f * x[i];
  };
  if (e.checked.empty()) {
    for (std::int64_t i = 0; i < n; ++i)
      compute(i);
  } else {
    for (std::int64_t i : e.checked)
      compute(i);
    e.note =
        "n * work is too large to compute every output on the CPU: checked the first and last 4096 "
        "elements and an even spread between them";
  }
  return e;
}

using ExpensiveCount = std::int64_t (*)(std::int64_t n);

// The descriptor fields both variants share; `takes_expensive` mirrors the kernel's branch.
KernelDesc base(std::string id, std::string title, std::string lesson, PathRule takes_expensive,
                ExpensiveCount expensive_count) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.params = {{"n", "elements", 1 << 24, 1, std::int64_t{1} << 30, {}, true},
              {"work", "dependent FMAs on the expensive path", 1024, 1, 1 << 16, {}, false}};
  k.block_rank = 1;
  k.default_block = {256, 1, 1};
  k.block_presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.grid = [](const Params& p, const BlockShape& b, int) { return common::grid_1d(p.at("n"), b); };
  k.buffers = buffers();
  k.init = init;
  k.reference = [takes_expensive, expensive_count](const HostBuffers& in, const Params& p) {
    return reference(in, p, takes_expensive, expensive_count(p.at("n")));
  };
  // A float FMA chain against double: each step rounds once and |w| <= 0.5 halves earlier errors,
  // so the error stays within about 2.4e-7 of |y| <= 2.
  k.tolerance = {1e-6, 1e-6};
  k.bytes_moved = [expensive_count](const Params& p) {
    const std::int64_t n = p.at("n");
    return 4.0 *
           static_cast<double>(2 * n + expensive_count(n)); // x and y whole, w only where needed
  };
  k.flops = [expensive_count](const Params& p) {
    const std::int64_t n = p.at("n"), expensive = expensive_count(n);
    const double fma_flops =
        2.0 * static_cast<double>(expensive) * static_cast<double>(p.at("work"));
    return fma_flops + static_cast<double>(n - expensive); // one multiply per cheap element
  };
  k.test_sizes = {{{"n", 1000}, {"work", 16}},
                  {{"n", 4097}, {"work", 3}},
                  {{"n", 33}, {"work", 1}},
                  {{"n", 100003}, {"work", 64}}};
  return k;
}

using Taken = bool (*)(std::int64_t element);

// load x and store y run on every lane; load w only on lanes the rule sends down the expensive
// path.
std::vector<Site> sites(Taken expensive_lane) {
  const auto width = common::fixed_width(4);
  const auto once = common::single_iteration();
  // The lanes with an element whose rule says `runs(element)`.
  const auto lanes_where = [](auto runs) {
    return [runs](const LaunchShape& s) -> LaneOffsets {
      return [runs, n = s.param("n"),
              block_x = s.block.x](Coord b, Coord t, std::int64_t) -> std::optional<std::int64_t> {
        const std::int64_t i = divergence::element(b.x, block_x, t.x);
        if (i >= n || !runs(i))
          return std::nullopt;
        return i * 4;
      };
    };
  };
  const auto every_lane = lanes_where([](std::int64_t) { return true; });
  const auto expensive_lanes = lanes_where(expensive_lane);
  return {{"load x", MemorySpace::global, AccessOp::load, kX, width, once, every_lane},
          {"load w (expensive path)", MemorySpace::global, AccessOp::load, kW, width, once,
           expensive_lanes},
          {"store y", MemorySpace::global, AccessOp::store, kY, width, once, every_lane}};
}

#if WL_DEVICE_CODE
template <auto Kernel> void launch(const DeviceLaunch& l) {
  Kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
      buffer<const float>(l, kX), buffer<const float>(l, kW), buffer<float>(l, kY),
      l.shape.param("n"), static_cast<int>(l.shape.param("work")));
}
#endif

KernelDesc per_thread() {
  KernelDesc k = base(
      "divergence/per_thread", "Divergent branch inside every warp",
      "Each thread branches on the sign of its input, and the signs alternate, so in every warp 16 "
      "lanes take the expensive path (work FMAs) and 16 the cheap one: the warp runs both, each "
      "with "
      "half its lanes masked. Counters: warp execution efficiency near 50 %. Global memory panel: "
      "load w has 16 active lanes per request, every other float, 4 sectors for 64 useful bytes. "
      "Timings: compare with divergence/per_warp, which does the same thread work.",
      sign_rule, expensive_per_thread);
  k.allowed_blocks = "any 1D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_1d_block(b); };
  k.sites = sites(divergence::positive_input);
  k.symbol = [](const Params&) { return std::string("wl::divergence_per_thread"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(divergence_per_thread); };
  k.launch = launch<divergence_per_thread>;
#endif
  return k;
}

std::string check_warp_multiple(const BlockShape& b) {
  if (std::string reason = common::check_1d_block(b); !reason.empty())
    return reason;
  if (b.x % 32 != 0)
    return "divergence/per_warp needs a multiple of 32 threads, so each warp's elements share one "
           "path";
  return "";
}

KernelDesc per_warp() {
  KernelDesc k = base(
      "divergence/per_warp", "Branch uniform within each warp",
      "As many elements on each path as per_thread, but the branch depends on the warp "
      "index: even warps all take the expensive path, odd warps the cheap one, so no warp runs "
      "both. Counters: warp execution efficiency near 100 %. Global memory panel: load w is issued "
      "only by the expensive warps, 4 sectors per request with all 32 lanes. Timings: about half "
      "of "
      "per_thread's once work is large.",
      warp_rule, expensive_per_warp);
  k.allowed_blocks = "a 1D block of 32 to 1024 threads, a multiple of 32";
  k.check_block = [](const BlockShape& b, const Params&) { return check_warp_multiple(b); };
  k.sites = sites(divergence::warp_takes_expensive_path);
  k.symbol = [](const Params&) { return std::string("wl::divergence_per_warp"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(divergence_per_warp); };
  k.launch = launch<divergence_per_warp>;
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> divergence_kernels() { return {per_thread(), per_warp()}; }

} // namespace wl
