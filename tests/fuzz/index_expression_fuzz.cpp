// Fuzzes the index playground's reader: the first line is the expression, the second the swizzle,
// the first byte the element size, the block and the warp. Every input is read or refused with a
// UsageError; each accepted warp's addresses go through the access model, global and shared.

#include "fuzz_support.h"
#include "model/index_expression.h"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  const std::uint8_t shape = data[0];
  std::vector<std::string> lines;
  wl::fuzz::each_line(wl::fuzz::as_text(data + 1, size - 1),
                      [&](std::string_view line) { lines.emplace_back(line); });
  lines.resize(std::max<std::size_t>(lines.size(), 2));
  wl::IndexPlayground p;
  p.expression = lines[0];
  p.swizzle = lines[1];
  p.element_bytes = 1 << (shape % 5);
  p.block = {32 << (shape / 5 % 3), 1 + shape / 15 % 3, 1};
  p.warp = shape / 45 % 4;
  p.space = shape & 0x80 ? wl::MemorySpace::shared : wl::MemorySpace::global;
  wl::fuzz::read_or_refuse([&] {
    const wl::PlaygroundWarp warp = wl::evaluate_playground(p);
    wl::analyse_global(warp.access);
    wl::analyse_shared(warp.access);
    wl::bank_map(warp.access);
  });
  return 0;
}
