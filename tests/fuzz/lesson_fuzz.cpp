// Fuzzes the lesson reader (`warplens --lesson FILE`, `warplens lesson check FILE`): parse_lesson
// on the text, as load_lesson hands it over after reading the file. Every input is read or
// refused with a UsageError naming its line.

#include "fuzz_support.h"
#include "lesson/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wl::fuzz::read_or_refuse(
      [&] { wl::parse_lesson(std::string(wl::fuzz::as_text(data, size)), "fuzz.lesson"); });
  return 0;
}
