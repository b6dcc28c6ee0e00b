#pragma once
// Compiles kept on disk, so `warplens model mine.cu` the second time, or a worker asked again,
// does not pay NVRTC again: a file that includes cooperative_groups.h or CUB takes 1.3 to 1.8 s to
// compile on a 2-core machine, and the same compile read back takes milliseconds. An entry is
// keyed by everything the compile depends on (the text, its headers, the kernels named, the
// tunables, the architecture, NVRTC's version and the toolkit headers' folders and their times),
// and read back through the same checks as the compile server's answer: an entry that does not
// read is compiled again and replaced.

#include "kernel_file/compile.h"

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wl {

// $XDG_CACHE_HOME/warplens/compiles, else ~/.cache/warplens/compiles; "" where neither names a
// folder (then nothing is kept).
std::filesystem::path compile_cache_folder();

// The entry's key: a digest of all the compile depends on.
std::string compile_key(const KernelFileCompile& request);

// The compile kept under `key`, or nullopt (none, or one that does not read).
std::optional<CompiledKernelFile> cached_compile(const std::string& key);

// Keeps `compiled` under `key` (written whole or not at all), and leaves at most
// kMostCachedCompiles entries, the oldest removed first. A folder that takes no file keeps none.
void keep_compile(const std::string& key, const CompiledKernelFile& compiled);

inline constexpr std::size_t kMostCachedCompiles = 256;

// A compile as JSON (the cubin in base64) and back, checked as anything read from another process
// or a file is: the compile server's answers and the kept compiles. Reading one that holds
// "error" (the server's refusal) throws it as a UsageError.
nlohmann::json compiled_json(const CompiledKernelFile& compiled);
CompiledKernelFile compiled_from_json(const nlohmann::json& value, const std::string& where);

} // namespace wl
