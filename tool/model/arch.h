#pragma once
// A plain description of a GPU: every figure the occupancy and access models need, with the
// source of the figures. Built from an assets/arch preset or, on a GPU, from the device itself.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

struct BlockShape;
class Fields;

struct Arch {
  std::string id;                   // "h100", or "device:0" when read from a GPU
  std::string name;                 // "NVIDIA H100 SXM5 80GB HBM3"
  std::vector<std::string> aliases; // "sm_90"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  std::array<int, 3> max_block_dims{};
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  int registers_per_block = 0;
  int max_registers_per_thread = 0;
  std::int64_t shared_memory_per_sm = 0;
  std::int64_t shared_memory_per_block = 0;       // without opt-in (also the static limit)
  std::int64_t shared_memory_per_block_optin = 0; // dynamic, after cudaFuncSetAttribute
  std::int64_t reserved_shared_memory_per_block = 0;
  std::int64_t l2_cache_bytes = 0;
  double dram_bandwidth_gbps = 0; // peak, 1e9 B/s
  // What L2 serves the SMs, 1e9 B/s: the roofline's L2 roof. No device property reports it: a
  // preset's comes from a measurement or a whitepaper (its source says which), a device's from
  // the preset of its kind; 0 where unknown, and the roofline says so.
  double l2_bandwidth_gbps = 0;
  // The SM clock's maximum (boost), as CUDA reports it: shared memory serves one wavefront per
  // cycle per SM at it. 0 where unknown (results recorded before it was carried).
  double sm_clock_mhz = 0;
  std::string source; // where the figures come from
  // The GPU itself when read from one ("GPU-8d3f1c2a-...", as nvidia-smi -L prints it): two boards
  // of one kind tell apart by it. Empty for a preset.
  std::string uuid;

  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
  // FP32 adds, multiplies or fused multiply-adds one SM completes per clock (by compute
  // capability; 0 where WarpLens knows no documented figure), and the device's FP32 peak in
  // GFLOP/s at sm_clock_mhz, a fused multiply-add counted as 2 FLOP (0 where either is unknown).
  // Tensor cores are not counted.
  int fp32_per_clock_per_sm() const;
  double fp32_peak_gflops() const;
  std::string sm_name() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

// "NVIDIA H100 80GB HBM3 (GPU-8d3f1c2a)": a GPU read from a device, told apart from another board
// of its kind; a preset's name alone.
std::string device_label(const Arch& arch);

// "9.0" into 9 and 0; false unless both parts are whole numbers.
bool parse_compute_capability(std::string_view text, int& major, int& minor);

// A preset file is held to the figures GPUs have and checked for consistency; a device's own
// figures (from the worker, or recorded) only to what the models can compute with.
enum class ArchOrigin { preset_file, device };

// Reads every key through the checked helpers (json_fields.h); throws UsageError
// "WHERE: KEY: what is wrong; what is allowed".
Arch arch_from_fields(const Fields& fields, ArchOrigin origin);

// Reads and validates one preset; throws UsageError naming the file, the key and what is allowed.
Arch arch_from_json(const nlohmann::json& json, const std::string& origin);
Arch load_arch_file(const std::filesystem::path& file);
nlohmann::json arch_to_json(const Arch& arch);

// The preset of a GPU's kind (its compute capability and SM count), one named like it first
// ("NVIDIA H200" for an H200 where the H100's preset has the same figures); nullptr for none.
const Arch* preset_of_kind(const std::vector<Arch>& presets, const Arch& gpu);

// Every preset in a folder, checked for duplicate ids and aliases.
std::vector<Arch> load_arch_presets(const std::filesystem::path& folder);

// An id ("h100"), an alias ("sm_90") or a path to a .json preset, whose names must not be another
// preset's. Throws UsageError listing the known ids, then `more_choices` (what the caller also
// takes: "device[:N] for this machine's GPU"), when nothing matches.
Arch find_arch(const std::vector<Arch>& presets, const std::string& spec,
               std::string_view more_choices = "");
// "a100, b200, ...": the presets' ids, for a message that lists the choices.
std::string preset_ids(const std::vector<Arch>& presets);
// A spec that names a preset file rather than a preset: it ends in .json or holds a '/'.
bool is_preset_path(std::string_view spec);

// Checks a block shape against the arch's per-block limits; throws UsageError naming the side or
// the thread count and the allowed range.
void check_block_fits(const Arch& arch, const BlockShape& block);

// The preset a GPU stands for in a recording: of `presets` with its SM count and compute
// capability, the one whose name starts with the GPU's, else the first. Throws UsageError naming
// the GPU when none has them.
const Arch& preset_of_device(const Arch& device, const std::vector<Arch>& presets);
// Why a recording made on `device` cannot stand for `preset`: other SMs or compute capability, or
// another preset is this GPU's by its name (an H200 is not an H100, though both have 132 SMs of
// 9.0); "" when it can.
std::string preset_refusal(const Arch& preset, const Arch& device,
                           const std::vector<Arch>& presets);

} // namespace wl
