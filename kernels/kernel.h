#pragma once
// What WarpLens knows about one bundled kernel: its lesson, its parameters and the block shapes
// it allows, its buffers and how to fill them, how to launch it, its CPU reference, and its
// memory access sites. A site's lane addresses come from the same index functions
// (kernels/index/<family>.h) that the kernel itself calls, so the access model and the kernel
// cannot drift apart.
//
// This header is plain C++ (no CUDA types): the models in tool/ read descriptors on machines
// with no GPU. Launchers, which need CUDA, live in the family's .cu file.

#include "memory_space.h"
#include "shape.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace wl {

using Params = std::map<std::string, std::int64_t>;

struct ParamSpec {
  std::string name; // "stride", "n", "rows"
  std::string help; // one line: what it is and its unit
  std::int64_t default_value = 0;
  std::int64_t min = 0, max = 0; // inclusive
  std::vector<std::int64_t>
      choices;          // when not empty, the only values allowed (e.g. width 4, 8, 16)
  bool is_size = false; // a problem-size parameter, set in order by --size AxBxC
};

// A block or thread index inside a launch.
struct Coord {
  int x = 0, y = 0, z = 0;
};

// One launch as the index math sees it.
struct LaunchShape {
  BlockShape grid;
  BlockShape block;
  Params params;

  std::int64_t param(const std::string& name) const { return params.at(name); }
};

// Byte offset a thread accesses at one site of one launch, in iteration `iteration` of the loop
// around it: from the start of the site's buffer for global sites, from the start of the block's
// shared memory for shared sites. nullopt when the thread does not execute the access (a guard, a
// partial tile, an inactive branch).
using LaneOffsets =
    std::function<std::optional<std::int64_t>(Coord block, Coord thread, std::int64_t iteration)>;

// One global or shared load or store in the kernel's source.
struct Site {
  std::string name; // "load x", "store tile"
  MemorySpace space = MemorySpace::global;
  AccessOp op = AccessOp::load;
  int buffer = -1;                         // global sites: which of KernelDesc::buffers
  std::function<int(const Params&)> width; // bytes per lane: 1, 2, 4, 8 or 16
  // Trip count of the loop around the site (1 when there is none); every thread runs the same
  // count, and the lane offsets are nullopt for iterations a thread skips.
  std::function<std::int64_t(const LaunchShape&)> iterations;
  // The site's lane offsets in one launch. Binding reads the launch's parameters once, so the
  // model, which asks for a million lanes, pays only each lane's index math.
  std::function<LaneOffsets(const LaunchShape&)> offset;
};

enum class ElementType { f32, i32, f64, u32 };
inline int element_bytes(ElementType type) { return type == ElementType::f64 ? 8 : 4; }

// inout: uploaded like an input, changed in place by the kernel, and verified like an output
// (a run-time kernel's `y = a * x + y`).
enum class BufferRole { input, output, inout };
inline bool is_uploaded(BufferRole role) { return role != BufferRole::output; }
inline bool is_verified(BufferRole role) { return role != BufferRole::input; }

struct BufferSpec {
  std::string name;
  ElementType type = ElementType::f32;
  BufferRole role = BufferRole::input;
  std::function<std::int64_t(const Params&)> count; // elements
};

// A buffer's contents on the host as 4-byte words (an 8-byte element takes two), read as its
// type.
// The allocator of a buffer's words. Its memory is first touched in parallel slices as it is
// allocated: value-initialising a default-size buffer one page fault at a time took most of a
// run's set-up (three 64 MiB vectors of vec_add: 0.13 s on one core). The elements are still
// value-initialised, so a buffer's words are zero until filled, as with std::allocator.
template <typename T> struct PrefaultedAllocator {
  using value_type = T;
  PrefaultedAllocator() = default;
  template <typename U> PrefaultedAllocator(const PrefaultedAllocator<U>&) {}
  T* allocate(std::size_t n) {
    T* memory = std::allocator<T>().allocate(n);
    constexpr std::size_t kPerThread = std::size_t{1} << 22; // bytes; a smaller buffer is one pass
    const std::size_t bytes = n * sizeof(T);
    const std::size_t threads = std::clamp<std::size_t>(
        bytes / kPerThread, 1, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::jthread> touching;
    for (std::size_t t = 1; t < threads; ++t)
      touching.emplace_back([=] {
        const std::size_t begin = bytes * t / threads, end = bytes * (t + 1) / threads;
        std::memset(reinterpret_cast<char*>(memory) + begin, 0, end - begin);
      });
    std::memset(memory, 0, bytes / threads);
    return memory;
  }
  void deallocate(T* memory, std::size_t n) { std::allocator<T>().deallocate(memory, n); }
  template <typename U> bool operator==(const PrefaultedAllocator<U>&) const { return true; }
};
using Words = std::vector<std::uint32_t, PrefaultedAllocator<std::uint32_t>>;

struct HostBuffer {
  ElementType type = ElementType::f32;
  Words words;

  float* f32() { return reinterpret_cast<float*>(words.data()); }
  const float* f32() const { return reinterpret_cast<const float*>(words.data()); }
  std::int32_t* i32() { return reinterpret_cast<std::int32_t*>(words.data()); }
  const std::int32_t* i32() const { return reinterpret_cast<const std::int32_t*>(words.data()); }
  std::uint32_t* u32() { return words.data(); }
  const std::uint32_t* u32() const { return words.data(); }
  double* f64() { return reinterpret_cast<double*>(words.data()); }
  const double* f64() const { return reinterpret_cast<const double*>(words.data()); }
  std::int64_t size() const { // elements
    return static_cast<std::int64_t>(words.size()) / (element_bytes(type) / 4);
  }
  std::size_t bytes() const { return 4 * words.size(); }
};
using HostBuffers = std::vector<HostBuffer>; // in KernelDesc::buffers order

// What the reference produced: expected values for the outputs (same layout as the buffers), and
// which element indices to compare. An empty list compares every element; a kernel whose
// reference is too costly for every output (a 4096^3 matmul) names a sample that covers the
// edges and explains it in `note`.
struct Expected {
  HostBuffers values;
  std::vector<std::int64_t> checked;
  std::string note;
};

struct Tolerance {
  double absolute = 1e-5;
  double relative = 1e-5; // |got - want| <= absolute + relative * |want|
};

// A launch on the device. CUDA types stay in the .cu files: stream is a cudaStream_t.
struct DeviceLaunch {
  LaunchShape shape;
  std::int64_t dynamic_smem = 0;
  std::vector<void*> buffers; // device pointers in KernelDesc::buffers order
  void* stream = nullptr;
};

// Where a kernel comes from, and so what WarpLens knows of its insides. A bundled kernel carries
// its index math (its sites): every figure has a prediction beside the measurement. A library
// call and a kernel given at run time carry their code and measured figures only; the panels and
// reports say why a prediction is absent (`no_index_math_reason`) and show what was measured.
enum class KernelKind {
  bundled,  // compiled into WarpLens with its index math
  library,  // a library call (cuBLAS): the library chooses its kernels and their blocks
  run_time, // given at run time (a person's own file, compiled by NVRTC): no index math
};

inline constexpr KernelKind kKernelKinds[] = {KernelKind::bundled, KernelKind::library,
                                              KernelKind::run_time};

inline const char* kernel_kind_name(KernelKind kind) {
  switch (kind) {
  case KernelKind::library:
    return "library";
  case KernelKind::run_time:
    return "run_time";
  case KernelKind::bundled:
    break;
  }
  return "bundled";
}

// Why a kernel of this kind has no per-site prediction: one sentence for a panel or a report;
// "" for a bundled kernel, which has one.
inline const char* no_index_math_reason(KernelKind kind) {
  switch (kind) {
  case KernelKind::library:
    return "A library call: its kernels are the library's, with no index math to predict from.";
  case KernelKind::run_time:
    return "A kernel given at run time: no index math is written for it, so its accesses are "
           "predicted per line from its compiled code (its PTX, run for a sample of blocks).";
  case KernelKind::bundled:
    break;
  }
  return "";
}

// A kernel's registers, shared and local memory as its compiler reported them, where the build's
// own report does not hold it (a kernel given at run time, compiled when asked).
struct KernelUsage {
  int sm = 0; // the architecture compiled for: 90 for sm_90
  int registers = 0;
  std::int64_t static_shared_bytes = 0, local_bytes = 0;
  std::string source; // "NVRTC, sm_90, 45 ms"
};

// One argument of a run-time kernel's launch: a buffer's device pointer, or a scalar's bytes.
struct RunTimeArgument {
  int buffer = -1;                  // which of KernelDesc::buffers; -1 for a scalar
  std::vector<unsigned char> value; // a scalar's bytes as the kernel's parameter holds them
  std::string name;                 // as the description names it, for messages
};

// A run-time kernel's code for one set of parameters on one architecture: what the engine loads
// A run-time kernel's accesses modelled from its compiled code (tool/model/compiled_model.h):
// named here only, since kernels/ knows no model.
class CompiledAccessModel;

// and launches itself (a bundled kernel is linked in, and its `launch` enqueues it).
struct RunTimeCode {
  std::shared_ptr<const std::vector<char>> cubin;
  std::string function;       // the kernel's lowered (mangled) name in the cubin
  std::string reference;      // the reference kernel's, which takes the same arguments; "" for none
  std::string reference_name; // as the file writes it: "saxpy_reference"
  std::vector<RunTimeArgument> arguments; // in the kernel's parameter order
};

struct KernelDesc {
  KernelKind kind = KernelKind::bundled;
  std::string id;     // "family/variant": part of the CLI contract
  std::string title;  // "Strided loads"
  std::string lesson; // the teaching note: what the lesson is, what to look for in each panel

  std::vector<ParamSpec> params;
  // Cross-parameter checks (e.g. 32-bit index overflow): "" when fine, else a one-line reason.
  std::function<std::string(const Params&)> check_params;
  // Where parameters come in built combinations (a tunable kernel's table of blockings): the
  // parameters with `changed` kept at its value and the others moved to the nearest combination
  // built, which the GUI applies as a person picks one value. Empty when every combination within
  // the ranges is built.
  std::function<Params(const Params&, const std::string& changed)> nearest_params;
  // Those combinations, each the values of the parameters that come together (a blocking's bm,
  // bn, bk, ...), for `warplens list`; empty with nearest_params.
  std::vector<Params> built_combinations;

  int block_rank = 1; // 1, 2 or 3: the sides the user chooses
  BlockShape default_block;
  std::vector<BlockShape> block_presets; // shapes worth trying, for the GUI
  std::string allowed_blocks;            // "any 32 to 1024 threads in x", shown with every refusal
  // "" when the shape is allowed for these parameters, else why not (one line).
  std::function<std::string(const BlockShape&, const Params&)> check_block;

  std::function<BlockShape(const Params&, const BlockShape& block, int sm_count)> grid;
  std::function<std::int64_t(const Params&, const BlockShape& block)>
      dynamic_smem; // may be empty: 0

  std::vector<BufferSpec> buffers;
  // Fills the inputs from a seeded generator; empty: every f32 input uniform in [-1, 1).
  std::function<void(HostBuffers&, const Params&, std::uint64_t seed)> init;
  std::function<Expected(const HostBuffers& inputs, const Params&)> reference;
  Tolerance tolerance;

  std::function<double(const Params&)>
      bytes_moved; // fewest bytes: inputs read once, outputs written once
  // bytes_moved is the fewest bytes the launch must move, a floor under the modelled DRAM time.
  // False for a kernel file that left `bytes` out: each buffer once is then only a guess, which a
  // strided or gathering kernel moves less of.
  bool bytes_are_a_floor = true;
  std::function<double(const Params&)> flops; // may be empty: no arithmetic worth a roofline
  // Why the FP32 counters (FADD and FMUL once, FFMA twice) see other than `flops`, where they do
  // by more than 2 %: what the compiled code does beside the algorithm's arithmetic, as read in
  // its SASS. The Roofline panel shows it beside both figures.
  std::string fp32_counter_note;
  // Where its multiply-adds run on the tensor cores (mma.sync), the FP32 peak bounds nothing: the
  // roofline and the modelled time leave the FP32 roof out and say why. It then also needs
  // `min_compute_capability` (x10: 80 for TF32 mma), refused below it by the model and the engine.
  bool tensor_cores = false;
  int min_compute_capability = 0;
  std::string needs_why; // what in it needs that capability: "its multiply-adds run on ..."

  std::vector<Site> sites; // a bundled kernel's; none for a library call or a run-time kernel

  // Small problem sizes for the GPU correctness sweep (some not multiples of any block side),
  // each a full parameter set; every allowed preset block is run on each.
  std::vector<Params> test_sizes;

  // The __global__ function for cudaFuncGetAttributes, and its name as written in C++
  // ("wl::vec_add_scalar" or "wl::matmul_tiled<16>"), to find its build-time resource usage.
  std::function<const void*(const Params&)> function;
  std::function<std::string(const Params&)> symbol;
  // A run-time kernel's resources for these parameters, compiled for `sm` (x10) when asked;
  // throws UsageError with the compiler's first error. Empty for a bundled kernel.
  std::function<KernelUsage(const Params&, int sm)> usage;
  // A run-time kernel's code for these parameters, compiled for `sm` when asked (kept); the
  // engine launches it and verifies it against its reference kernel. Empty for a bundled kernel.
  std::function<RunTimeCode(const Params&, int sm)> code;
  // A run-time kernel's accesses for these parameters, from the code compiled for `sm` (its PTX
  // run by the model): what a bundled kernel's sites give. Empty for a bundled kernel.
  std::function<std::shared_ptr<const CompiledAccessModel>(const Params&, int sm)> compiled_model;
  // A run-time kernel's buffers, how each is filled and whether a reference checks them, in
  // words: a session keeps its buffers and inputs across a save of the file that leaves them the
  // same, and loads only the new code. Empty for a bundled kernel.
  std::string inputs_signature;
  // Enqueues the kernel (or the library call) on the launch's stream.
  std::function<void(const DeviceLaunch&)> launch;
};

} // namespace wl
