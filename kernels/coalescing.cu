// coalescing: copies whose only difference is where each thread reads.
//
// The lesson: a warp's global load is one request, and what it costs is the number of 32-byte
// sectors its 32 addresses touch. Every kernel here copies one element of `width` bytes per
// thread and writes out[i] in order (the store is always coalesced); only the read moves.
// `stride` spreads the reads apart, `offset` shifts them off the sector grid, `permuted` shuffles
// lanes inside each warp without changing which sectors it touches, and `random` gathers through
// an index array. Global memory panel: compare the load site's sectors per request with the
// store's, and the bytes used against the bytes fetched. Timings: time follows the bytes DRAM
// moves (whole 64-byte segments on a load), not the bytes the kernel asked for. Occupancy panel:
// the same for every pattern; these
// kernels use no shared memory and few registers, so occupancy is not what separates them.

#include "common.h"
#include "families.h"
#include "index/coalescing.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#include "vector_width.cuh"
#endif

#include <climits>

namespace wl {

#if WL_DEVICE_CODE
template <int Width>
__global__ void coalescing_stride(const VectorOf<Width>* in, VectorOf<Width>* out, int count,
                                  int stride) {
  const int i = coalescing::thread_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < count) {
    const int source = coalescing::strided_source(i, stride);
    out[i] = in[source]; // sites: load in (strided), store out
  }
}

template <int Width>
__global__ void coalescing_offset(const VectorOf<Width>* in, VectorOf<Width>* out, int count,
                                  int offset) {
  const int i = coalescing::thread_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < count) {
    const int source = coalescing::shifted_source(i, offset);
    out[i] = in[source]; // sites: load in (shifted), store out
  }
}

template <int Width>
__global__ void coalescing_permuted(const VectorOf<Width>* in, VectorOf<Width>* out, int count) {
  const int i = coalescing::thread_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < count) {
    const int source = coalescing::permuted_source(i);
    out[i] = in[source]; // sites: load in (permuted), store out
  }
}

template <int Width>
__global__ void coalescing_random(const VectorOf<Width>* in, const int* index, VectorOf<Width>* out,
                                  int count) {
  const int i = coalescing::thread_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < count) {
    const int source = index[i]; // site: load index
    out[i] = in[source];         // sites: load in (gathered), store out
  }
}
#endif

namespace {

// Buffers: `in` first, `out` last; the random gather puts its index array between them.
constexpr int kIn = 0;
constexpr int kIndex = 1;   // random only
constexpr int kCopyOut = 1; // stride, offset, permuted

int width_of(const Params& p) { return static_cast<int>(p.at("width")); }
std::int64_t floats_per_element(const Params& p) { return p.at("width") / 4; }
// Elements of the access width in the output: one per thread.
std::int64_t element_count(const Params& p) { return p.at("n") / floats_per_element(p); }

// Where output element i reads from, in elements of the access width; bound to one parameter
// set first so a reference over millions of elements looks its parameters up once.
using Source = std::function<std::int64_t(int element)>;
using SourceFor = std::function<Source(const Params&)>;

// The family's shared fields. `input_elements` sizes `in` so every source index stays inside it.
KernelDesc base(std::string id, std::string title, std::string lesson, std::vector<ParamSpec> extra,
                std::function<std::int64_t(const Params&)> input_elements) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.params = {{"n", "floats in the output", 1 << 24, 1, std::int64_t{1} << 28, {}, true},
              {"width",
               "bytes each thread loads and stores: 4 (float), 8 (float2) or 16 (float4)",
               4,
               4,
               16,
               {4, 8, 16}}};
  k.params.insert(k.params.end(), extra.begin(), extra.end());
  k.check_params = [input_elements](const Params& p) -> std::string {
    if (p.at("n") % floats_per_element(p) != 0)
      return "n must be a multiple of width / 4: each thread moves one " +
             std::to_string(p.at("width")) + "-byte element";
    if (input_elements(p) * floats_per_element(p) > INT_MAX)
      return "the input would exceed 2^31 - 1 floats and the kernel indexes with 32-bit ints: "
             "lower n";
    return "";
  };
  k.block_rank = 1;
  k.default_block = {256, 1, 1};
  k.block_presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "any 1D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_1d_block(b); };
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return common::grid_1d(element_count(p), b);
  };
  k.buffers = {
      {"in", ElementType::f32, BufferRole::input,
       [input_elements](const Params& p) { return input_elements(p) * floats_per_element(p); }},
      {"out", ElementType::f32, BufferRole::output, [](const Params& p) { return p.at("n"); }}};
  k.tolerance = {0.0, 0.0}; // a copy: bit-identical
  k.bytes_moved = [](const Params& p) { return 8.0 * static_cast<double>(p.at("n")); };
  return k;
}

// out[i] = in[source(i)], element by element, as the kernels do.
std::function<Expected(const HostBuffers&, const Params&)>
copy_reference(std::vector<BufferSpec> specs, SourceFor source_for) {
  return [specs, source_for](const HostBuffers& in, const Params& p) {
    Expected e{common::outputs_like(in, specs), {}, ""};
    const int out = static_cast<int>(specs.size()) - 1;
    const std::int64_t floats = floats_per_element(p);
    float* dst = e.values[out].f32();
    const float* src = in[kIn].f32();
    const std::int64_t count = element_count(p);
    const Source source = source_for(p);
    for (int i = 0; i < count; ++i) {
      const std::int64_t from = source(i);
      for (std::int64_t f = 0; f < floats; ++f)
        dst[i * floats + f] = src[from * floats + f];
    }
    return e;
  };
}

// A site every thread with an output element runs once: `element_of` gives the element of the
// buffer it touches, in units of `width` bytes.
Site per_thread_site(std::string name, AccessOp op, int buffer,
                     std::function<int(const Params&)> width, SourceFor element_of) {
  return {std::move(name),
          MemorySpace::global,
          op,
          buffer,
          width,
          common::single_iteration(),
          [width, element_of](const LaunchShape& s) -> LaneOffsets {
            return [source = element_of(s.params), count = element_count(s.params),
                    bytes = width(s.params), block_x = s.block.x](
                       Coord b, Coord t, std::int64_t) -> std::optional<std::int64_t> {
              const int i = coalescing::thread_element(b.x, block_x, t.x);
              if (i >= count)
                return std::nullopt;
              return source(i) * bytes;
            };
          }};
}

// Thread i's own element: the store's address, and the index load's.
Source own_element(const Params&) {
  return [](int i) { return std::int64_t{i}; };
}

// The patterned load of `in` and the in-order store of out[i].
std::vector<Site> copy_sites(std::string load_name, int out_buffer, SourceFor source) {
  return {per_thread_site(std::move(load_name), AccessOp::load, kIn, width_of, source),
          per_thread_site("store out", AccessOp::store, out_buffer, width_of, own_element)};
}

std::string instance(const char* name, const Params& p) {
  return std::string("wl::") + name + "<" + std::to_string(p.at("width")) + ">";
}

KernelDesc stride() {
  const SourceFor source = [](const Params& p) -> Source {
    const int stride = static_cast<int>(p.at("stride"));
    return [stride](int i) { return std::int64_t{coalescing::strided_source(i, stride)}; };
  };
  KernelDesc k =
      base("coalescing/stride", "Strided reads",
           "Thread i reads element i * stride and writes element i. Global memory panel: at width "
           "4, 'load in (strided)' is 4 sectors per request at stride 1, 8 at stride 2, 16 at "
           "stride 4 and 32 from stride 8 on, where every lane has a sector of its own and uses 4 "
           "of its 32 bytes; 'store out' stays at the ideal. Wider elements start higher (8 and 16 "
           "sectors at stride 1) and reach 32 sooner. Timings: DRAM reads whole 64-byte "
           "segments, so the bytes it moves keep growing after the sectors stop, until lanes sit "
           "64 B apart (stride 16 at width 4); the time follows those bytes (the modelled time "
           "at peak), not the sectors. "
           "Occupancy panel: identical at every stride, so it is not the cause.",
           {{"stride", "elements between the reads of consecutive threads", 1, 1, 64, {}}},
           [](const Params& p) { return element_count(p) * p.at("stride"); });
  k.reference = copy_reference(k.buffers, source);
  k.sites = copy_sites("load in (strided)", kCopyOut, source);
  k.test_sizes = {{{"n", 1000}, {"width", 4}, {"stride", 3}},
                  {{"n", 4098}, {"width", 8}, {"stride", 2}},
                  {{"n", 20000}, {"width", 16}, {"stride", 33}},
                  {{"n", 1}, {"width", 4}, {"stride", 64}}};
  k.symbol = [](const Params& p) { return instance("coalescing_stride", p); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return with_width(p.at("width"), [](auto w) {
      return reinterpret_cast<const void*>(coalescing_stride<decltype(w)::value>);
    });
  };
  k.launch = [](const DeviceLaunch& l) {
    with_width(l.shape.param("width"), [&](auto w) {
      using T = VectorOf<decltype(w)::value>;
      coalescing_stride<decltype(w)::value>
          <<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
              buffer<const T>(l, kIn), buffer<T>(l, kCopyOut),
              static_cast<int>(element_count(l.shape.params)),
              static_cast<int>(l.shape.param("stride")));
    });
  };
#endif
  return k;
}

KernelDesc offset() {
  const SourceFor source = [](const Params& p) -> Source {
    const int offset = static_cast<int>(p.at("offset"));
    return [offset](int i) { return std::int64_t{coalescing::shifted_source(i, offset)}; };
  };
  KernelDesc k = base(
      "coalescing/offset", "Misaligned reads",
      "Thread i reads element i + offset and writes element i, so the read is shifted off the "
      "32-byte sector grid while the write stays aligned. Global memory panel: at width 4 and "
      "offset 1 each warp's 128 bytes straddle 5 sectors on 'load in (shifted)' (80 % of fetched "
      "bytes used) while 'store out' stays at 4; an offset of 8 elements (32 bytes) is aligned "
      "again. Timings: the extra sector is shared with the neighbouring warp and usually comes "
      "from L1 or L2, so misalignment costs far less than a stride of 2: the lesson is that on "
      "modern GPUs alignment matters much less than density.",
      {{"offset", "elements (of the access width) every read is shifted by", 1, 0, 1024, {}}},
      [](const Params& p) { return element_count(p) + p.at("offset"); });
  k.reference = copy_reference(k.buffers, source);
  k.sites = copy_sites("load in (shifted)", kCopyOut, source);
  k.test_sizes = {{{"n", 1000}, {"width", 4}, {"offset", 1}},
                  {{"n", 4098}, {"width", 8}, {"offset", 3}},
                  {{"n", 20000}, {"width", 16}, {"offset", 1}},
                  {{"n", 333}, {"width", 4}, {"offset", 1024}}};
  k.symbol = [](const Params& p) { return instance("coalescing_offset", p); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return with_width(p.at("width"), [](auto w) {
      return reinterpret_cast<const void*>(coalescing_offset<decltype(w)::value>);
    });
  };
  k.launch = [](const DeviceLaunch& l) {
    with_width(l.shape.param("width"), [&](auto w) {
      using T = VectorOf<decltype(w)::value>;
      coalescing_offset<decltype(w)::value>
          <<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
              buffer<const T>(l, kIn), buffer<T>(l, kCopyOut),
              static_cast<int>(element_count(l.shape.params)),
              static_cast<int>(l.shape.param("offset")));
    });
  };
#endif
  return k;
}

KernelDesc permuted() {
  const SourceFor source = [](const Params&) -> Source {
    return [](int i) { return std::int64_t{coalescing::permuted_source(i)}; };
  };
  KernelDesc k =
      base("coalescing/permuted", "Reads shuffled within each warp",
           "Within every run of 32 threads, lane l reads element (13 l + 7) mod 32 of the run's 32 "
           "elements instead of element l, and writes its own element. Global memory panel: 'load "
           "in (permuted)' is 4 sectors per request at width 4, exactly like an in-order copy: the "
           "coalescer looks at which sectors a warp touches, not at which lane asks for which "
           "bytes. Timings: the same as coalescing/stride at stride 1. With a block that is not a "
           "multiple of 32 threads the runs straddle two hardware warps and extra sectors appear.",
           {}, [](const Params& p) {
             return common::ceil_div(element_count(p), coalescing::kSegment) * coalescing::kSegment;
           });
  k.reference = copy_reference(k.buffers, source);
  k.sites = copy_sites("load in (permuted)", kCopyOut, source);
  k.test_sizes = {{{"n", 1000}, {"width", 4}},
                  {{"n", 4098}, {"width", 8}},
                  {{"n", 20004}, {"width", 16}},
                  {{"n", 31}, {"width", 4}}};
  k.symbol = [](const Params& p) { return instance("coalescing_permuted", p); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return with_width(p.at("width"), [](auto w) {
      return reinterpret_cast<const void*>(coalescing_permuted<decltype(w)::value>);
    });
  };
  k.launch = [](const DeviceLaunch& l) {
    with_width(l.shape.param("width"), [&](auto w) {
      using T = VectorOf<decltype(w)::value>;
      coalescing_permuted<decltype(w)::value>
          <<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
              buffer<const T>(l, kIn), buffer<T>(l, kCopyOut),
              static_cast<int>(element_count(l.shape.params)));
    });
  };
#endif
  return k;
}

KernelDesc random_gather() {
  constexpr int kOut = 2;
  const SourceFor source = [](const Params& p) -> Source {
    const int count = static_cast<int>(element_count(p));
    const auto pattern = static_cast<std::uint32_t>(p.at("gather_seed"));
    return [count, pattern](int i) {
      return std::int64_t{coalescing::random_source(i, count, pattern)};
    };
  };
  KernelDesc k = base(
      "coalescing/random", "Random gather",
      "Thread i reads index[i] (a coalesced 4-byte load) and then element in[index[i]], a random "
      "element of the input, and writes element i. Global memory panel: 'load index' and 'store "
      "out' are at the ideal; 'load in (gathered)' is close to 32 sectors per request at width 4, "
      "each lane alone in its sector, like a large stride. Timings: at the default size the input "
      "(64 MB) is larger than the H100's 50 MB L2 and most sectors come from DRAM; shrink n until "
      "the input fits in L2 and the gather speeds up while its sectors per request stay the same. "
      "gather_seed picks the pattern (the model draws exactly the lanes the kernel reads); the "
      "values come from the run's seed.",
      {{"gather_seed", "seed of the random gather pattern", 1, 0, INT_MAX, {}}}, element_count);
  k.buffers.insert(k.buffers.begin() + kIndex,
                   BufferSpec{"index", ElementType::i32, BufferRole::input, element_count});
  k.init = [specs = k.buffers](HostBuffers& buffers, const Params& p, std::uint64_t seed) {
    common::fill_uniform(buffers, specs, seed);
    const int count = static_cast<int>(element_count(p));
    const auto pattern = static_cast<std::uint32_t>(p.at("gather_seed"));
    std::int32_t* index = buffers[kIndex].i32();
    for (int i = 0; i < count; ++i)
      index[i] = coalescing::random_source(i, count, pattern);
  };
  // The reference follows the index buffer it was given, not the hash.
  k.reference = [specs = k.buffers](const HostBuffers& in, const Params& p) {
    const std::int32_t* index = in[kIndex].i32();
    const SourceFor follow_index = [index](const Params&) -> Source {
      return [index](int i) { return std::int64_t{index[i]}; };
    };
    return copy_reference(specs, follow_index)(in, p);
  };
  k.bytes_moved = [](const Params& p) {
    return 8.0 * static_cast<double>(p.at("n")) + 4.0 * static_cast<double>(element_count(p));
  };
  k.sites = {
      per_thread_site("load index", AccessOp::load, kIndex, common::fixed_width(4), own_element)};
  for (Site& site : copy_sites("load in (gathered)", kOut, source))
    k.sites.push_back(std::move(site));
  k.test_sizes = {{{"n", 1000}, {"width", 4}, {"gather_seed", 1}},
                  {{"n", 4098}, {"width", 8}, {"gather_seed", 7}},
                  {{"n", 20004}, {"width", 16}, {"gather_seed", 3}}};
  k.symbol = [](const Params& p) { return instance("coalescing_random", p); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return with_width(p.at("width"), [](auto w) {
      return reinterpret_cast<const void*>(coalescing_random<decltype(w)::value>);
    });
  };
  k.launch = [](const DeviceLaunch& l) {
    with_width(l.shape.param("width"), [&](auto w) {
      using T = VectorOf<decltype(w)::value>;
      coalescing_random<decltype(w)::value>
          <<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
              buffer<const T>(l, kIn), buffer<const int>(l, kIndex), buffer<T>(l, kOut),
              static_cast<int>(element_count(l.shape.params)));
    });
  };
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> coalescing_kernels() {
  return {stride(), offset(), permuted(), random_gather()};
}

} // namespace wl
