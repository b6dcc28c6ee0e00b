// Fuzzes the kernel file's description reader (`warplens model mine.cu`, the GUI on each save, a
// worker on each request): read_kernel_file_description on the text, then every expression it
// read evaluated as a launch would, with a block and each size and tunable at its default.

#include "fuzz_support.h"
#include "kernel_file/description.h"

namespace {

void evaluate_all(const wl::KernelFileDescription& d) {
  wl::ExpressionValues values{{"block.x", 256}, {"block.y", 2}, {"block.z", 1}};
  for (const wl::FileSize& s : d.sizes)
    values[s.name] = s.default_value;
  for (const wl::FileTunable& t : d.tunables)
    values[t.name] = t.values.front();
  const auto evaluate = [&](const wl::Expression& e) {
    wl::fuzz::read_or_refuse([&] { e.evaluate(values); });
  };
  for (const wl::FileRestriction& r : d.restrictions)
    evaluate(r.condition);
  for (const wl::FileArg& a : d.args) {
    if (a.count)
      evaluate(*a.count);
    if (a.whole_value)
      evaluate(*a.whole_value);
  }
  for (const wl::Expression& e : d.grid)
    evaluate(e);
  for (const auto* e : {&d.shared_bytes, &d.bytes, &d.flops})
    if (*e)
      evaluate(**e);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wl::fuzz::read_or_refuse([&] {
    evaluate_all(
        wl::read_kernel_file_description(std::string(wl::fuzz::as_text(data, size)), "fuzz.cu"));
  });
  return 0;
}
