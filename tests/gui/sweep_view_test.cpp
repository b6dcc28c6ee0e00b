// The Sweep panel's data: model sweeps with refusals, a measured H100 sweep read back from
// `warplens sweep --json`, ties within the measured noise, and the panel drawn from both.

#include "base/error.h"
#include "gui_test_support.h"
#include "registry.h"

namespace wl::viz::test {
namespace {

const std::filesystem::path kMeasured = std::filesystem::path(WARPLENS_SOURCE_ASSETS) /
                                        "recordings" / "sweep-vec_add_3d-blocks3d-h100.json";

TEST(SweepView, AModelSweepKeepsRefusedShapesWithTheReason) {
  const KernelDesc& kernel = *find_kernel("vec_add_3d/blocks3d");
  const Arch arch = make_app("vec_add_3d/blocks3d", "h100").arch();
  const SweepData data = model_sweep(kernel, resolve_kernel_request(kernel.id, {}, "", "").params,
                                     SweepGrid{sweep_shapes({64, 256}, {1, 8}, {1}), {}}, arch);
  ASSERT_EQ(data.points.size(), 4u);
  EXPECT_EQ(data.origin, "model, h100");
  const SweepPoint& too_big = data.points[3]; // 256x8: 2048 threads
  EXPECT_FALSE(too_big.result);
  EXPECT_NE(too_big.refused.find("1024 threads"), std::string::npos) << too_big.refused;
  ASSERT_TRUE(data.points[0].result);
  EXPECT_TRUE(figure_value(*sweep_metric("theoretical_occupancy"), *data.points[0].result));
  EXPECT_FALSE(figure_value(*sweep_metric("median_time"), *data.points[0].result))
      << "a model sweep has no time";
}

TEST(SweepView, AMeasuredSweepReadsBackWithItsTimesAndTies) {
  const SweepData data = load_sweep(kMeasured);
  ASSERT_EQ(data.points.size(), 24u);
  EXPECT_NE(data.origin.find("NVIDIA H100"), std::string::npos) << data.origin;
  int measured = 0;
  for (const SweepPoint& p : data.points)
    measured += p.result && p.result->timing && p.result->counters;
  EXPECT_EQ(measured, 23) << "256x8 is refused";
  const std::vector<bool> tied =
      tied_with_best(charted_points(data.points, chart_axes(data)), sweep_metric("median_time"));
  const auto best = std::min_element(
      data.points.begin(), data.points.end(), [](const SweepPoint& a, const SweepPoint& b) {
        const double ta = a.result ? a.result->timing->median_time : 1e30,
                     tb = b.result ? b.result->timing->median_time : 1e30;
        return ta < tb;
      });
  EXPECT_FALSE(tied[best - data.points.begin()]) << "the best is the reference, not a tie";
  for (std::size_t i = 0; i < data.points.size(); ++i)
    if (tied[i]) {
      const TimingStats &t = *data.points[i].result->timing, &b = *best->result->timing;
      EXPECT_LE(t.median_time - b.median_time,
                std::max(t.noise * t.median_time, b.noise * b.median_time));
    }
  EXPECT_EQ(
      tied_with_best(charted_points(data.points, chart_axes(data)), sweep_metric("registers")),
      std::vector<bool>(data.points.size(), false))
      << "only timed figures carry a noise to tie within";
}

TEST(SweepView, ACorruptSweepFileIsAOneLineError) {
  const std::filesystem::path file = scratch_dir() / "sweep.json";
  std::ofstream(file) << "[{\"block\": [1,";
  try {
    load_sweep(file);
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

TEST(SweepView, AnotherJsonFileIsNamedAsNotASweepFile) {
  const std::filesystem::path file = scratch_dir() / "sidecar.json";
  std::ofstream(file) << R"({"screenshot": {"width": 1280, "height": 720}, "shown": {}})";
  try {
    load_sweep(file);
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ": not a sweep file"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("warplens sweep ... --json FILE"), std::string::npos);
  }
}

TEST(SweepView, ABadSideListIsShownNotThrown) {
  App app = make_app("vec_add/scalar", "h100");
  std::snprintf(app.sweep.x_sides.data(), app.sweep.x_sides.size(), "32:16:8");
  app.model_sweep_now();
  EXPECT_NE(app.sweep.problem.find("32:16:8"), std::string::npos) << app.sweep.problem;
  EXPECT_FALSE(app.sweep.data);
}

TEST(SweepView, ThePanelDrawsAModelAndAMeasuredSweep) {
  App app = make_app("vec_add_3d/blocks3d", "h100");
  app.open(Panel::sweep) = true;
  HeadlessGui gui(app, 1440, 900);
  app.model_sweep_now();
  ASSERT_TRUE(app.sweep.data) << app.sweep.problem;
  EXPECT_GT(grey_variance(gui.render(2)), 100);
  app.sweep.data = load_sweep(kMeasured);
  app.sweep.metric = sweep_metric("median_time");
  const std::filesystem::path png = scratch_dir() / "sweep.png";
  app.frame.screenshot = ScreenshotRequest{Panel::sweep, png.string()};
  gui.render(kPanelPictureFrames);
  ASSERT_EQ(app.messages.last_screenshot_path, png.string()) << app.messages.status;
  EXPECT_GT(std::filesystem::file_size(png), 1000u);
}

TEST(SweepView, AModelSweepExportsAsCsvWithItsTimingCellsEmptyAndEveryColumnInEveryRow) {
  const KernelDesc& kernel = *find_kernel("vec_add/scalar");
  const Arch arch = make_app("vec_add/scalar", "h100").arch();
  const SweepData data = model_sweep(kernel, resolve_kernel_request(kernel.id, {}, "", "").params,
                                     SweepGrid{sweep_shapes({64, 2048}, {1}, {1}), {}}, arch);
  const std::string csv = sweep_csv(data.points);
  std::istringstream lines(csv);
  std::string header, modelled, refused;
  std::getline(lines, header);
  std::getline(lines, modelled);
  std::getline(lines, refused);
  EXPECT_EQ(header.rfind("block_x,block_y,block_z,n,status,", 0), 0u) << header;
  EXPECT_EQ(modelled.rfind("64,1,1,16777216,modelled,,,,,,,", 0), 0u) << modelled;
  // The figure table's launch columns, by key: the model's figures filled, the timing's empty.
  const auto split = [](const std::string& row) {
    std::vector<std::string> parts;
    std::istringstream in(row);
    for (std::string part; std::getline(in, part, ',');)
      parts.push_back(part);
    return parts;
  };
  const auto cell = [&](const std::string& row, const std::string& key) {
    const std::vector<std::string> names = split(header), cells = split(row);
    const auto at = std::find(names.begin(), names.end(), key);
    return at == names.end() || std::size_t(at - names.begin()) >= cells.size()
               ? std::string("(no column)")
               : cells[std::size_t(at - names.begin())];
  };
  EXPECT_EQ(cell(modelled, "theoretical_occupancy"), "100") << header << "\n" << modelled;
  EXPECT_EQ(cell(modelled, "bytes_moved"), "201326592") << modelled;
  EXPECT_EQ(cell(modelled, "median_time"), "") << modelled;
  EXPECT_EQ(refused.rfind("2048,1,1,16777216,refused,", 0), 0u) << refused;
  // A spreadsheet reads columns by position: the refused row has every column too.
  const auto fields = [](const std::string& row) {
    std::size_t count = 1;
    bool quoted = false;
    for (char c : row) {
      quoted = c == '"' ? !quoted : quoted;
      count += !quoted && c == ',';
    }
    return count;
  };
  EXPECT_EQ(fields(modelled), fields(header)) << modelled;
  EXPECT_EQ(fields(refused), fields(header)) << refused;
}

} // namespace
} // namespace wl::viz::test
