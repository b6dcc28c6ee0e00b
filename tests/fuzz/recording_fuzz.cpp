// Fuzzes the recording reader (assets/recordings/h100.json, model mode's timings):
// load_recording takes only a path, so the input is written to a scratch file first. An accepted
// recording then fills a model result of its first run, as the GUI's model mode does.

#include "fuzz_support.h"
#include "workflows/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = wl::fuzz::scratch_file(wl::fuzz::as_text(data, size), "recording.json");
  wl::fuzz::read_or_refuse([&] {
    const wl::viz::Recording recording = wl::viz::load_recording(file);
    recording.label();
    if (!recording.runs.empty()) {
      wl::RunResult shown = recording.runs.front();
      shown.arch.id = recording.arch;
      recording.fill(shown);
    }
  });
  return 0;
}
