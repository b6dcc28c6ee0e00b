// bank_conflicts: the same shared-memory read, with the lanes' addresses arranged three ways.
//
// The lesson: shared memory is 32 banks of 4-byte words, and a warp's access takes one wavefront
// (one cycle of the shared-memory pipe) per distinct word the busiest bank must serve. Lanes that
// read the same word share it (broadcast); lanes that read different words of one bank wait in
// line. Every kernel here fills a tile from global memory, synchronises, makes 32 patterned reads
// of the tile per thread ("load tile (patterned)", the site the bank grid draws), sums them and
// writes the sum. `stride` spaces the lanes `stride` elements apart, `padded` reads a column of a
// 32-wide tile whose rows are padded, `broadcast` has every lane read one word. Bank grid: which
// bank each lane hits and in which wavefront. Shared memory panel: wavefronts per request against
// the ideal for the width (1, 2 or 4). Timings: time grows with the wavefronts. Occupancy panel:
// the tile's shared memory (4 KB, or 32 x (32 + pad) elements for `padded`) is rarely the limit.

#include "common.h"
#include "families.h"
#include "index/bank_conflicts.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#include "vector_width.cuh"
#endif

namespace wl {

#if WL_DEVICE_CODE
namespace bank_conflicts {

// Copies `elements` elements from global memory into the tile, every thread a share; element e
// lands at tile[place(e)].
template <typename T, typename Place>
__device__ void fill_tile(const T* in, T* tile, int elements, Place place) {
  for (int pass = 0;; ++pass) {
    const int e = fill_element(threadIdx.x, blockDim.x, pass);
    if (e >= elements)
      break;
    tile[place(e)] = in[e]; // sites: load in (fill), store tile (fill)
  }
}

struct InOrder {
  __device__ int operator()(int e) const { return e; }
};

struct Padded {
  int pad;
  __device__ int operator()(int e) const { return padded_fill_element(e, pad); }
};

} // namespace bank_conflicts

template <int Width>
__global__ void bank_conflicts_stride(const VectorOf<Width>* in, VectorOf<Width>* out, int count,
                                      int stride) {
  using T = VectorOf<Width>;
  __shared__ T tile[bank_conflicts::tile_elements(Width)];
  bank_conflicts::fill_tile(in, tile, bank_conflicts::tile_elements(Width),
                            bank_conflicts::InOrder{});
  __syncthreads();
  const int g = bank_conflicts::thread_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (g >= count)
    return; // its sum would be dropped, so the compiler drops its reads too: say so in the source
  T sum = vector_zero<T>();
  for (int read = 0; read < bank_conflicts::kReads; ++read) {
    const int e = bank_conflicts::strided_element(g, stride, read, Width);
    sum = vector_add(sum, tile[e]); // site: load tile (patterned)
  }
  out[g] = sum; // site: store out
}

template <int Width>
__global__ void bank_conflicts_padded(const VectorOf<Width>* in, VectorOf<Width>* out, int count,
                                      int pad) {
  using T = VectorOf<Width>;
  extern __shared__ float4 padded_storage[]; // float4: aligned for every width
  T* tile = reinterpret_cast<T*>(padded_storage);
  bank_conflicts::fill_tile(in, tile, bank_conflicts::kSide * bank_conflicts::kSide,
                            bank_conflicts::Padded{pad});
  __syncthreads();
  const int g = bank_conflicts::thread_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (g >= count)
    return; // its sum would be dropped, so the compiler drops its reads too: say so in the source
  T sum = vector_zero<T>();
  for (int read = 0; read < bank_conflicts::kReads; ++read)
    sum = vector_add(
        sum,
        tile[bank_conflicts::column_read_element(g, read, pad)]); // site: load tile (patterned)
  out[g] = sum;                                                   // site: store out
}

template <int Width>
__global__ void bank_conflicts_broadcast(const VectorOf<Width>* in, VectorOf<Width>* out,
                                         int count) {
  using T = VectorOf<Width>;
  __shared__ T tile[bank_conflicts::tile_elements(Width)];
  bank_conflicts::fill_tile(in, tile, bank_conflicts::tile_elements(Width),
                            bank_conflicts::InOrder{});
  __syncthreads();
  const int g = bank_conflicts::thread_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (g >= count)
    return; // its sum would be dropped, so the compiler drops its reads too: say so in the source
  T sum = vector_zero<T>();
  for (int read = 0; read < bank_conflicts::kReads; ++read)
    sum = vector_add(
        sum, tile[bank_conflicts::broadcast_element(read, Width)]); // site: load tile (patterned)
  out[g] = sum;                                                     // site: store out
}
#endif

namespace {

constexpr int kIn = 0, kOut = 1;

int width_of(const Params& p) { return static_cast<int>(p.at("width")); }
int floats_per_element(const Params& p) { return width_of(p) / 4; }
// Elements of the access width in the output: one per thread.
std::int64_t element_count(const Params& p) { return p.at("n") / floats_per_element(p); }

// The tile as the kernel sees it: `in` element e sits at shared element tile_element(e).
// The placement and the read are bound to one parameter set first: the model calls them for
// every lane.
struct TileLayout {
  using Placement = std::function<int(int logical)>;
  using Read = std::function<int(int thread, int read)>;
  std::function<std::int64_t(const Params&)> elements;  // elements copied from `in`
  std::function<Placement(const Params&)> tile_element; // where each lands in shared memory
  std::function<Read(const Params&)> read;              // the patterned read
};

// Expected sums, in double: every thread's 32 reads of the tile, laid out as the kernel lays it.
std::function<Expected(const HostBuffers&, const Params&)>
sum_reference(std::vector<BufferSpec> specs, TileLayout layout) {
  return [specs, layout](const HostBuffers& in, const Params& p) {
    Expected e{common::outputs_like(in, specs), {}, ""};
    const int floats = floats_per_element(p);
    std::vector<float> tile;
    const TileLayout::Placement tile_element = layout.tile_element(p);
    for (int logical = 0; logical < layout.elements(p); ++logical) {
      const std::size_t at = static_cast<std::size_t>(tile_element(logical)) * floats;
      if (tile.size() < at + floats)
        tile.resize(at + floats);
      for (int f = 0; f < floats; ++f)
        tile[at + f] = in[kIn].f32()[logical * floats + f];
    }
    // One period of threads summed read by read; the rest repeat it.
    float* out = e.values[kOut].f32();
    const std::int64_t count = element_count(p);
    const std::int64_t period = std::min<std::int64_t>(count, bank_conflicts::kPatternPeriod);
    const TileLayout::Read read_of = layout.read(p);
    for (int g = 0; g < period; ++g)
      for (int f = 0; f < floats; ++f) {
        double sum = 0;
        for (int read = 0; read < bank_conflicts::kReads; ++read)
          sum += tile[static_cast<std::size_t>(read_of(g, read)) * floats + f];
        out[static_cast<std::size_t>(g) * floats + f] = static_cast<float>(sum);
      }
    for (std::int64_t g = period; g < count; ++g)
      for (int f = 0; f < floats; ++f)
        out[g * floats + f] = out[(g % period) * floats + f];
    return e;
  };
}

// Four sites: fill (global load, shared store), the patterned shared read, the global store.
std::vector<Site> tile_sites(TileLayout layout) {
  const auto fill_passes = [layout](const LaunchShape& s) {
    return common::ceil_div(layout.elements(s.params), s.block.x);
  };
  // The `in` element thread t copies in fill pass `pass`, if any; `to_offset(e)` turns it into
  // the site's offset.
  const auto fill_site = [layout](auto bind_to_offset) {
    return [layout, bind_to_offset](const LaunchShape& s) -> LaneOffsets {
      return [elements = layout.elements(s.params), block_x = s.block.x,
              to_offset = bind_to_offset(s.params)](
                 Coord, Coord t, std::int64_t pass) -> std::optional<std::int64_t> {
        const int e = bank_conflicts::fill_element(t.x, block_x, static_cast<int>(pass));
        if (e >= elements)
          return std::nullopt;
        return to_offset(e);
      };
    };
  };
  const auto in_offset = [](const Params& p) {
    return [bytes = width_of(p)](int e) { return std::int64_t{e} * bytes; };
  };
  const auto tile_offset = [layout](const Params& p) {
    return [placement = layout.tile_element(p), bytes = width_of(p)](int e) {
      return std::int64_t{placement(e)} * bytes;
    };
  };
  const auto patterned_read = [layout](const LaunchShape& s) -> LaneOffsets {
    return
        [read = layout.read(s.params), bytes = width_of(s.params), count = element_count(s.params),
         block_x = s.block.x](Coord b, Coord t, std::int64_t r) -> std::optional<std::int64_t> {
          const int g = bank_conflicts::thread_element(b.x, block_x, t.x);
          if (g >= count)
            return std::nullopt;
          return std::int64_t{read(g, static_cast<int>(r))} * bytes;
        };
  };
  const auto store_out = [](const LaunchShape& s) -> LaneOffsets {
    return [count = element_count(s.params), bytes = width_of(s.params),
            block_x = s.block.x](Coord b, Coord t, std::int64_t) -> std::optional<std::int64_t> {
      const int g = bank_conflicts::thread_element(b.x, block_x, t.x);
      if (g >= count)
        return std::nullopt;
      return std::int64_t{g} * bytes;
    };
  };
  return {{"load in (fill)", MemorySpace::global, AccessOp::load, kIn, width_of, fill_passes,
           fill_site(in_offset)},
          {"store tile (fill)", MemorySpace::shared, AccessOp::store, -1, width_of, fill_passes,
           fill_site(tile_offset)},
          {"load tile (patterned)", MemorySpace::shared, AccessOp::load, -1, width_of,
           [](const LaunchShape&) { return std::int64_t{bank_conflicts::kReads}; }, patterned_read},
          {"store out", MemorySpace::global, AccessOp::store, kOut, width_of,
           common::single_iteration(), store_out}};
}

// The family's shared fields; `layout` says how the tile is filled and read.
KernelDesc base(std::string id, std::string title, std::string lesson, std::vector<ParamSpec> extra,
                TileLayout layout) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.fp32_counter_note = "it counts none: its adds only keep the shared reads it teaches from being "
                        "removed by the compiler, so it has no place on the roofline";
  k.params = {{"n", "floats in the output", 1 << 24, 1, std::int64_t{1} << 28, {}, true},
              {"width",
               "bytes per shared access: 4 (float), 8 (float2) or 16 (float4)",
               4,
               4,
               16,
               {4, 8, 16}}};
  k.params.insert(k.params.end(), extra.begin(), extra.end());
  k.check_params = [](const Params& p) -> std::string {
    if (p.at("n") % floats_per_element(p) != 0)
      return "n must be a multiple of width / 4: each thread writes one " +
             std::to_string(p.at("width")) + "-byte element";
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
       [layout](const Params& p) { return layout.elements(p) * floats_per_element(p); }},
      {"out", ElementType::f32, BufferRole::output, [](const Params& p) { return p.at("n"); }}};
  k.reference = sum_reference(k.buffers, layout);
  // 32 float adds of values in [-1, 1): the float sum is within 32 * 2^-24 * 32 of the exact one.
  k.tolerance = {1e-4, 1e-5};
  k.bytes_moved = [layout](const Params& p) {
    return 4.0 * static_cast<double>(layout.elements(p) * floats_per_element(p) + p.at("n"));
  };
  k.sites = tile_sites(layout);
  return k;
}

std::string instance(const char* name, const Params& p) {
  return std::string("wl::") + name + "<" + std::to_string(p.at("width")) + ">";
}

// The 4 KB tile of `stride` and `broadcast`: copied in order.
TileLayout flat_tile(std::function<TileLayout::Read(const Params&)> read) {
  return {
      [](const Params& p) { return std::int64_t{bank_conflicts::tile_elements(width_of(p))}; },
      [](const Params&) -> TileLayout::Placement { return [](int logical) { return logical; }; },
      std::move(read)};
}

KernelDesc stride() {
  KernelDesc k = base(
      "bank_conflicts/stride", "Strided shared-memory reads",
      "Thread g reads tile element g * stride (wrapping around the 4 KB tile), shifted by one "
      "128-byte row in each of its 32 reads. Bank grid: at width 4, stride 1 puts the 32 lanes on "
      "32 banks (1 wavefront), stride 2 puts two lanes on each even bank (2 wavefronts, a 2-way "
      "conflict), stride 32 puts every lane on bank 0 (32 wavefronts) and an odd stride such as 33 "
      "is conflict-free again. Shared memory panel: 'load tile (patterned)' wavefronts per request "
      "against the ideal (1, or 2 and 4 for 8- and 16-byte elements: 256 and 512 bytes at 128 "
      "per wavefront). Timings: roughly proportional to the wavefronts.",
      {{"stride",
        "elements of the access width between consecutive threads' reads (words at width 4)",
        1,
        1,
        1024,
        {}}},
      flat_tile([](const Params& p) -> TileLayout::Read {
        return [stride = static_cast<int>(p.at("stride")), width = width_of(p)](int g, int read) {
          return bank_conflicts::strided_element(g, stride, read, width);
        };
      }));
  k.test_sizes = {{{"n", 1000}, {"width", 4}, {"stride", 2}},
                  {{"n", 3002}, {"width", 8}, {"stride", 33}},
                  {{"n", 5000}, {"width", 16}, {"stride", 3}},
                  {{"n", 100}, {"width", 4}, {"stride", 32}}};
  k.symbol = [](const Params& p) { return instance("bank_conflicts_stride", p); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return with_width(p.at("width"), [](auto w) {
      return reinterpret_cast<const void*>(bank_conflicts_stride<decltype(w)::value>);
    });
  };
  k.launch = [](const DeviceLaunch& l) {
    with_width(l.shape.param("width"), [&](auto w) {
      using T = VectorOf<decltype(w)::value>;
      bank_conflicts_stride<decltype(w)::value>
          <<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
              buffer<const T>(l, kIn), buffer<T>(l, kOut),
              static_cast<int>(element_count(l.shape.params)),
              static_cast<int>(l.shape.param("stride")));
    });
  };
#endif
  return k;
}

KernelDesc padded() {
  const auto pad = [](const Params& p) { return static_cast<int>(p.at("pad")); };
  KernelDesc k = base(
      "bank_conflicts/padded", "Column reads of a padded tile",
      "A 32 x 32 tile is stored with each row followed by `pad` unused elements, and the 32 lanes "
      "of a warp read down one column (lane l reads row l). Bank grid: at width 4 with pad 0 the "
      "rows are 128 bytes apart, so the whole column sits on one bank (32 wavefronts, a 32-way "
      "conflict); pad 1 makes the row pitch 33 words and spreads the column over all 32 banks (1 "
      "wavefront). The same holds at widths 8 and 16 (ideal 2 and 4). "
      "Shared memory panel: 'store tile (fill)' writes rows and stays at the ideal whatever the "
      "pad. Occupancy panel: the padding costs 32 x pad elements of shared memory per block. "
      "Timings: pad 0 against pad 1 is the transpose lesson in miniature.",
      {{"pad",
        "elements of the access width after each 32-element row (words at width 4)",
        1,
        0,
        32,
        {}}},
      TileLayout{
          [](const Params&) { return std::int64_t{bank_conflicts::kSide * bank_conflicts::kSide}; },
          [pad](const Params& p) -> TileLayout::Placement {
            return [pad = pad(p)](int logical) {
              return bank_conflicts::padded_fill_element(logical, pad);
            };
          },
          [pad](const Params& p) -> TileLayout::Read {
            return [pad = pad(p)](int g, int read) {
              return bank_conflicts::column_read_element(g, read, pad);
            };
          }});
  k.dynamic_smem = [pad](const Params& p, const BlockShape&) {
    return std::int64_t{bank_conflicts::padded_tile_elements(pad(p))} * width_of(p);
  };
  k.test_sizes = {{{"n", 1000}, {"width", 4}, {"pad", 0}},
                  {{"n", 3002}, {"width", 8}, {"pad", 1}},
                  {{"n", 5000}, {"width", 16}, {"pad", 3}},
                  {{"n", 100}, {"width", 4}, {"pad", 1}}};
  k.symbol = [](const Params& p) { return instance("bank_conflicts_padded", p); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return with_width(p.at("width"), [](auto w) {
      return reinterpret_cast<const void*>(bank_conflicts_padded<decltype(w)::value>);
    });
  };
  k.launch = [](const DeviceLaunch& l) {
    with_width(l.shape.param("width"), [&](auto w) {
      using T = VectorOf<decltype(w)::value>;
      bank_conflicts_padded<decltype(w)::value>
          <<<to_dim3(l.shape.grid), to_dim3(l.shape.block), l.dynamic_smem, stream_of(l)>>>(
              buffer<const T>(l, kIn), buffer<T>(l, kOut),
              static_cast<int>(element_count(l.shape.params)),
              static_cast<int>(l.shape.param("pad")));
    });
  };
#endif
  return k;
}

KernelDesc broadcast() {
  KernelDesc k = base("bank_conflicts/broadcast", "Every lane reads the same word",
                      "In each read all threads read the same tile element (the first of a "
                      "different 128-byte row each time). Bank grid: one bank, one word, every "
                      "lane marked as a broadcast: 1 wavefront per request at widths 4 and 8, 2 at "
                      "width 16 (the H100 serves 16-byte accesses by half warps). Shared memory "
                      "panel: no excess wavefronts, the opposite of the 32-way conflict of "
                      "bank_conflicts/stride at stride 32, which also uses a single bank. Timings: "
                      "as fast as stride 1: lanes that share a word cost nothing.",
                      {}, flat_tile([](const Params& p) -> TileLayout::Read {
                        return [width = width_of(p)](int, int read) {
                          return bank_conflicts::broadcast_element(read, width);
                        };
                      }));
  k.test_sizes = {
      {{"n", 1000}, {"width", 4}}, {{"n", 3002}, {"width", 8}}, {{"n", 5004}, {"width", 16}}};
  k.symbol = [](const Params& p) { return instance("bank_conflicts_broadcast", p); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return with_width(p.at("width"), [](auto w) {
      return reinterpret_cast<const void*>(bank_conflicts_broadcast<decltype(w)::value>);
    });
  };
  k.launch = [](const DeviceLaunch& l) {
    with_width(l.shape.param("width"), [&](auto w) {
      using T = VectorOf<decltype(w)::value>;
      bank_conflicts_broadcast<decltype(w)::value>
          <<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
              buffer<const T>(l, kIn), buffer<T>(l, kOut),
              static_cast<int>(element_count(l.shape.params)));
    });
  };
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> bank_conflicts_kernels() { return {stride(), padded(), broadcast()}; }

} // namespace wl
