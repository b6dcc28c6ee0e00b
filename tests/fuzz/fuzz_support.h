#pragma once
// What every fuzz target shares. The rule they check: whatever the bytes, a reader either reads
// them or refuses them with one wl::UsageError. Any other exception, a crash, a sanitizer report,
// a hang or unbounded memory is a finding, so only UsageError is caught here and everything else
// escapes to libFuzzer, which stops and keeps the input.

#include "base/error.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace wl::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `read`; a UsageError is the reader's clean refusal and ends the input quietly.
template <class Read> void read_or_refuse(Read&& read) {
  try {
    read();
  } catch (const UsageError&) {
  }
}

// A folder of this process's own (libFuzzer's -fork and -jobs run several), for the readers that
// only take a path.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path made =
        std::filesystem::temp_directory_path() / ("warplens-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(made);
    return made;
  }();
  return dir;
}

// Writes the input to `name` in the scratch folder, as the reader would find it on disk.
inline std::filesystem::path scratch_file(std::string_view bytes, const std::string& name) {
  const std::filesystem::path file = scratch_dir() / name;
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return file;
}

// The input cut at newlines, as the worker and its client read the protocol's lines.
template <class Each> void each_line(std::string_view text, Each&& each) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    each(text.substr(0, end));
    if (end == std::string_view::npos)
      return;
    text.remove_prefix(end + 1);
  }
}

} // namespace wl::fuzz
