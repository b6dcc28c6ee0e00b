// Fuzzes the command line's launch texts, the first byte choosing the reader:
//   0  a block, parse_block ("256", "32x8"): the form format_block prints must read back the same
//   1  a side list, parse_side_list ("32:1024:32", "8,16,32"), then the shapes it makes
//   2  a launch, resolve_kernel_request: the second byte picks the kernel, then lines of text:
//      the --size AxBxC, the --block, and one --param name=value a line
//   3  the numeric options' validators (cli_numbers.h) and the compute capability of a preset

#include "base/json_fields.h"
#include "cli_numbers.h"
#include "fuzz_support.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "registry.h"
#include "sweep/sweep_file.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void block(std::string_view text) {
  const wl::BlockShape shape = wl::parse_block(text);
  const std::string printed = wl::format_block(shape);
  if (!(wl::parse_block(printed) == shape)) {
    std::fprintf(stderr, "block '%s' does not read back as itself\n", printed.c_str());
    std::abort();
  }
}

void side_list(std::string_view text) {
  const std::vector<int> xs = wl::parse_side_list(std::string(text), "--block-x");
  wl::sweep_shapes(xs, {1, 2}, {1});
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  wl::fuzz::each_line(text, [&](std::string_view line) { lines.emplace_back(line); });
  lines.resize(std::max<std::size_t>(lines.size(), 2));
  return lines;
}

void launch(std::string_view text) {
  if (text.empty())
    return;
  const std::vector<wl::KernelDesc>& kernels = wl::all_kernels();
  const std::string& id = kernels[static_cast<unsigned char>(text[0]) % kernels.size()].id;
  const std::vector<std::string> lines = lines_of(text.substr(1));
  const std::vector<std::string> params(lines.begin() + 2, lines.end());
  wl::resolve_kernel_request(id, params, lines[0], lines[1]);
}

void numbers(std::string_view text) {
  std::string value(text);
  wl::whole_number_option(1, 255)(value);
  wl::whole_number_option(wl::kMinInt64, wl::kMaxInt64)(value);
  wl::seconds_option(wl::kMaxDouble)(value);
  int major = 0, minor = 0;
  wl::parse_compute_capability(text, major, minor);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  const std::string_view text = wl::fuzz::as_text(data + 1, size - 1);
  wl::fuzz::read_or_refuse([&] {
    switch (data[0] % 4) {
    case 0:
      return block(text);
    case 1:
      return side_list(text);
    case 2:
      return launch(text);
    default:
      return numbers(text);
    }
  });
  return 0;
}
