// Fuzzes the settings reader (~/.config/warplens/settings.json, the layout included):
// load_settings reads a folder's settings.json into an App, so the input is written there first.
// The App is made once (presets, recording, registry) and copied for each input. After reading,
// the GUI checks the launch the settings chose and writes the settings back: both run here too.

#include "fuzz_support.h"
#include "workflows/app.h"
#include "workflows/settings.h"

#include <filesystem>

namespace {

const wl::viz::App& fresh_app() {
  static const wl::viz::App app = wl::viz::make_app();
  return app;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path dir = wl::fuzz::scratch_dir() / "config";
  std::filesystem::remove_all(dir); // a file the last input had moved aside
  std::filesystem::create_directories(dir);
  wl::fuzz::scratch_file(wl::fuzz::as_text(data, size), "config/settings.json");
  wl::viz::App app = fresh_app();
  wl::fuzz::read_or_refuse([&] {
    wl::viz::load_settings(app, dir);
    app.request_problem();
    wl::viz::settings_text(app);
  });
  return 0;
}
