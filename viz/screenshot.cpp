#include "screenshot.h"

#include "block_text.h"
#include "error.h"
#include "frame.h"
#include "panels.h"
#include "run_report.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>

#include <nlohmann/json.hpp>
#include <stb_image_write.h>

namespace wl::viz {

std::string local_time(const char *format) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  localtime_r(&now, &parts);
  char text[64];
  std::strftime(text, sizeof text, format, &parts);
  return text;
}

namespace {

using nlohmann::json;

json configuration(const App &app) {
  json panels = json::object();
  for (Panel panel : kAllPanels) panels[panel_name(panel)] = app.panel_open[static_cast<int>(panel)];
  return {{"kernel", app.kernel_id},
          {"params", app.params},
          {"block", format_block(app.block())},
          {"arch", app.arch().id},
          {"live", app.live},
          {"theme", app.theme == Theme::light ? "light" : "dark"},
          {"mode", app.source ? app.source->mode() : "no result source"},
          {"panels_open", panels},
          {"status", app.status}};
}

// The current point of each impact curve, as the Occupancy panel marks it.
json curve_points(const App &app) {
  if (!app.curves || !app.latest || !app.latest->attributes) return nullptr;
  const RunResult &r = *app.latest;
  auto at = [](const std::vector<CurvePoint> &points, std::int64_t x) -> json {
    const auto it = std::find_if(points.rbegin(), points.rend(), [&](const CurvePoint &p) { return p.x <= x; });
    if (it == points.rend()) return nullptr;
    return {{"x", x}, {"blocks_per_sm", it->blocks_per_sm}, {"occupancy", it->occupancy}, {"points", points.size()}};
  };
  return {{"block_size", at(app.curves->block_size, r.launch.block.threads())},
          {"registers", at(app.curves->registers, r.attributes->registers)},
          {"shared_memory", at(app.curves->shared_memory, r.attributes->static_shared_bytes + r.dynamic_smem)}};
}

// Figures the panels show that run_json does not carry.
json derived_figures(const App &app) {
  json figures = json::object();
  json medians = json::array();
  for (const RunResult &run : app.history)
    if (run.timing) medians.push_back(run.timing->median_ms);
  figures["history_median_ms"] = medians;
  if (!app.latest) return figures;
  const RunResult &r = *app.latest;
  figures["achieved_occupancy"] = achieved_occupancy_text(r);
  figures["recorded_on"] = r.recorded_on;
  figures["counters_measured"] = !r.counters             ? "not collected"
                                 : r.counters->available ? "collected (result.counters)"
                                                         : "unavailable: " + r.counters->reason;
  figures["time_at_peak_bandwidth_ms"] =
      r.arch.dram_bandwidth_gbps > 0 ? json(r.bytes_moved / (r.arch.dram_bandwidth_gbps * 1e9) * 1e3) : json(nullptr);
  figures["impact_curves_current"] = curve_points(app);
  return figures;
}

// "shot.png" + "2" -> "shot-2.png"
std::filesystem::path with_suffix(const std::filesystem::path &path, const std::string &suffix) {
  std::string name = path.stem().string();
  name.append("-").append(suffix).append(path.extension().string());
  return path.parent_path() / name;
}

bool taken(const std::filesystem::path &png) {
  std::filesystem::path sidecar = png;
  return std::filesystem::exists(png) || std::filesystem::exists(sidecar.replace_extension(".json"));
}

} // namespace

Image crop(const Image &image, const PanelRect &rect) {
  const int x0 = std::clamp(static_cast<int>(rect.x), 0, image.width);
  const int y0 = std::clamp(static_cast<int>(rect.y), 0, image.height);
  const int x1 = std::clamp(static_cast<int>(rect.x + rect.width), x0, image.width);
  const int y1 = std::clamp(static_cast<int>(rect.y + rect.height), y0, image.height);
  Image part{x1 - x0, y1 - y0, {}};
  part.rgba.reserve(static_cast<std::size_t>(part.width) * part.height * 4);
  for (int y = y0; y < y1; ++y) {
    const auto row = image.rgba.begin() + (static_cast<std::ptrdiff_t>(y) * image.width + x0) * 4;
    part.rgba.insert(part.rgba.end(), row, row + static_cast<std::ptrdiff_t>(part.width) * 4);
  }
  return part;
}

std::filesystem::path free_screenshot_path(const std::filesystem::path &requested, std::optional<Panel> panel) {
  if (!requested.empty() && !taken(requested)) return requested;
  const std::string stamp = local_time("%Y%m%d-%H%M%S");
  std::string name = "warplens-";
  name += stamp;
  if (panel) name.append("-").append(panel_name(*panel));
  name += ".png";
  const std::filesystem::path base = requested.empty() ? std::filesystem::path(name) : with_suffix(requested, stamp);
  std::filesystem::path path = base;
  for (int counter = 2; taken(path); ++counter) path = with_suffix(base, std::to_string(counter));
  return path;
}

json screenshot_sidecar(const App &app, std::optional<Panel> panel, int width, int height) {
  return {{"screenshot",
           {{"panel", panel ? panel_name(*panel) : "window"},
            {"width", width},
            {"height", height},
            {"taken", local_time("%Y-%m-%dT%H:%M:%S%z")},
            {"font", loaded_font_name()}}},
          {"configuration", configuration(app)},
          {"result", app.latest ? run_json(*app.latest) : json(nullptr)},
          {"baseline", app.baseline ? run_json(*app.baseline) : json(nullptr)},
          {"figures", derived_figures(app)},
          {"error", app.last_error}};
}

std::filesystem::path save_screenshot(const App &app, const Image &window, const ScreenshotRequest &request) {
  Image image = window;
  if (request.panel) {
    const PanelRect &rect = app.panel_rects[static_cast<int>(*request.panel)];
    if (!rect.visible) throw UsageError(std::string("panel '") + panel_name(*request.panel) + "' is not open");
    image = crop(window, rect);
  }
  if (image.width <= 0 || image.height <= 0) throw UsageError("nothing to save: the image is empty");
  const std::filesystem::path png = free_screenshot_path(request.path, request.panel);
  if (!png.parent_path().empty()) {
    std::error_code ignored; // a missing folder is reported by the write below
    std::filesystem::create_directories(png.parent_path(), ignored);
  }
  if (!stbi_write_png(png.c_str(), image.width, image.height, 4, image.rgba.data(), image.width * 4))
    throw UsageError("cannot write " + png.string());
  std::filesystem::path sidecar = png;
  sidecar.replace_extension(".json");
  std::ofstream out(sidecar);
  out << screenshot_sidecar(app, request.panel, image.width, image.height).dump(2) << "\n";
  if (!out) throw UsageError("cannot write " + sidecar.string());
  return png;
}

} // namespace wl::viz
