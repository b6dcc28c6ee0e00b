#pragma once
// What the GUI tests share: an App with a canned model result (no GPU, no worker), a scratch
// folder per test, and pixel checks.

#include "front_end/front_end.h"
#include "model/model_kernel.h"
#include "workflows/app.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stb_image.h>

namespace wl::viz::test {

// The result model mode would show for this kernel and block on the H100.
inline RunResult canned_result(const std::string& kernel_id, const std::string& block,
                               const Arch& arch) {
  return model_kernel(resolve_kernel_request(kernel_id, {}, "", block), arch);
}

inline App app_showing(const std::string& kernel_id, const std::string& block) {
  App app = make_app(kernel_id, "h100");
  app.show(canned_result(kernel_id, block, app.arch()));
  return app;
}

// A fresh folder under the system's temp folder, named after the running test.
inline std::filesystem::path scratch_dir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("warplens-gui-") + info->test_suite_name() + "-" + info->name();
  for (char& c : name)
    if (c == '/')
      c = '_';
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A PNG as saved: its size and RGBA pixels (empty when it cannot be read).
struct Png {
  int width = 0, height = 0;
  Image image;
};

inline Png load_png(const std::filesystem::path& file) {
  Png png;
  int channels = 0;
  unsigned char* pixels = stbi_load(file.c_str(), &png.width, &png.height, &channels, 4);
  if (!pixels)
    return png;
  png.image = Image{png.width, png.height,
                    std::vector<unsigned char>(pixels, pixels + png.width * png.height * 4)};
  stbi_image_free(pixels);
  return png;
}

// Pixels of exactly this colour in an image.
inline int pixels_of(const Image& image, unsigned char r, unsigned char g, unsigned char b) {
  int count = 0;
  for (std::size_t i = 0; i + 3 < image.rgba.size(); i += 4)
    count += image.rgba[i] == r && image.rgba[i + 1] == g && image.rgba[i + 2] == b;
  return count;
}

// Variance of the grey level over all pixels: a blank or one-colour image has none.
inline double grey_variance(const Image& image) {
  double sum = 0, squares = 0;
  const std::size_t pixels = image.rgba.size() / 4;
  for (std::size_t i = 0; i < pixels; ++i) {
    const double grey = (image.rgba[4 * i] + image.rgba[4 * i + 1] + image.rgba[4 * i + 2]) / 3.0;
    sum += grey, squares += grey * grey;
  }
  const double mean = pixels ? sum / pixels : 0;
  return pixels ? squares / pixels - mean * mean : 0;
}

inline nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

inline void write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

// A lab's recording as `warplens record vec_add/scalar` on the H200 makes it: the bundled H200
// recording's runs of that kernel alone, its sources and version kept.
inline nlohmann::json lab_recording_of_vec_add() {
  nlohmann::json lab =
      read_json(std::filesystem::path(WARPLENS_SOURCE_ASSETS) / "recordings" / "h200.json");
  nlohmann::json kept = nlohmann::json::array();
  for (const nlohmann::json& run : lab["runs"])
    if (run["kernel"] == "vec_add/scalar")
      kept.push_back(run);
  lab["runs"] = kept;
  return lab;
}

} // namespace wl::viz::test
