// Fuzzes the script reader (`warplens --script FILE`, the GUI tests' stories): parse_script on the
// text, as load_script hands it over after reading the file.

#include "front_end/script.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wl::fuzz::read_or_refuse(
      [&] { wl::viz::parse_script(std::string(wl::fuzz::as_text(data, size)), "fuzz.txt"); });
  return 0;
}
