// Bad input in GUI state: the Launch panel never sends a request the kernel or the arch refuses,
// and says why in one line. Live mode sends only valid, changed requests.

#include "gui_test_support.h"
#include "registry.h"
#include "workflows/model_source.h"

namespace wl::viz::test {
namespace {

// Records what would have been sent.
struct RecordingSource : ResultSource {
  std::vector<KernelRequest> sent;
  std::vector<RunKind> kinds;
  void submit(const KernelRequest& request, const Arch&, RunKind kind) override {
    sent.push_back(request);
    kinds.push_back(kind);
  }
  void submit_sweep(const KernelRequest&, const SweepGrid&, const Arch&) override {}
  std::optional<SourceUpdate> poll() override { return std::nullopt; }
  bool busy() const override { return false; }
  std::string mode() const override { return "recording"; }
};

TEST(GuiLaunch, BlockTheKernelDoesNotAllowIsExplainedAndNeverSent) {
  App app = make_app("matmul/tiled", "h100");
  RecordingSource source;
  app.source = &source;
  app.choices.set_block({7, 7, 1});
  const std::string problem = app.request_problem();
  EXPECT_NE(problem.find("7x7"), std::string::npos) << problem;
  EXPECT_NE(problem.find("16x16"), std::string::npos) << problem; // what is allowed
  EXPECT_FALSE(app.run());
  EXPECT_EQ(app.results.last_error, problem);
  EXPECT_TRUE(source.sent.empty());
  HeadlessGui gui(app, 1024, 700); // the inline message draws
  EXPECT_GT(grey_variance(gui.render()), 100);
  EXPECT_TRUE(source.sent.empty());
}

TEST(GuiLaunch, ShapesOutsideTheArchOrNonPositiveAreRefused) {
  App app = make_app("vec_add/scalar", "h100");
  RecordingSource source;
  app.source = &source;
  app.choices.set_block({0, 1, 1});
  EXPECT_NE(app.request_problem().find("at least 1"), std::string::npos) << app.request_problem();
  app.choices.set_block({2048, 1, 1});
  EXPECT_FALSE(app.request_problem().empty());
  app.choices.block_sides = {-3, 4, 1};
  EXPECT_FALSE(app.run());
  EXPECT_TRUE(source.sent.empty());
  app.choices.set_block({256, 1, 1});
  EXPECT_EQ(app.request_problem(), "");
  EXPECT_TRUE(app.run());
  ASSERT_EQ(source.sent.size(), 1u);
  EXPECT_EQ(source.sent[0].block, (BlockShape{256, 1, 1}));
}

TEST(GuiLaunch, ParameterOutOfRangeIsRefused) {
  App app = make_app("coalescing/stride", "h100");
  const ParamSpec& first = app.kernel()->params.front();
  app.choices.params[first.name] = first.max + 1;
  EXPECT_NE(app.request_problem().find(first.name), std::string::npos) << app.request_problem();
  EXPECT_FALSE(app.run());
}

// The per-site pass is a pass of its own: a Run asks for it when the person ticked Measure per
// site, a live edit never does.
TEST(GuiLaunch, OnlyARunAsksForThePerSitePass) {
  App app = make_app("vec_add/scalar", "h100");
  RecordingSource source;
  app.source = &source;
  ASSERT_TRUE(app.run());
  app.choices.measure_per_site = true;
  app.choices.set_block({128, 1, 1});
  app.run_if_live();
  ASSERT_TRUE(app.run());
  ASSERT_EQ(source.kinds.size(), 3u);
  EXPECT_FALSE(source.kinds[0].per_site); // not ticked yet
  EXPECT_TRUE(source.kinds[1].live);
  EXPECT_FALSE(source.kinds[1].per_site);
  EXPECT_FALSE(source.kinds[2].live);
  EXPECT_TRUE(source.kinds[2].per_site);
}

TEST(GuiLaunch, LiveSendsEachValidChangeOnce) {
  App app = make_app("vec_add/scalar", "h100");
  RecordingSource source;
  app.source = &source;
  app.choices.live = true;
  app.run_if_live();
  app.run_if_live();
  EXPECT_EQ(source.sent.size(), 1u);
  app.choices.set_block({100000, 1, 1}); // invalid: nothing sent
  app.run_if_live();
  EXPECT_EQ(source.sent.size(), 1u);
  app.choices.set_block({128, 1, 1});
  app.run_if_live();
  EXPECT_EQ(source.sent.size(), 2u);
  ASSERT_TRUE(app.choices.select_arch("a100")); // the arch picker drives the models too
  app.run_if_live();
  app.run_if_live();
  EXPECT_EQ(source.sent.size(), 3u);
}

TEST(GuiLaunch, PresetsAreAllAllowed) {
  App app = make_app("matmul/tiled", "h100");
  for (const BlockShape& preset : allowed_presets(*app.kernel(), app.choices.params)) {
    app.choices.set_block(preset);
    EXPECT_EQ(app.request_problem(), "");
  }
}

TEST(GuiModelSource, ComputesOnItsThreadAndTheNewestRequestWins) {
  App app = make_app("matmul/tiled", "h100");
  ModelSource source;
  app.source = &source;
  ASSERT_TRUE(app.run());
  app.choices.params["tile"] = 32;
  app.choices.set_block({32, 32, 1});
  ASSERT_TRUE(app.run()) << app.results.last_error;
  source.wait_idle();
  app.poll_source();
  ASSERT_TRUE(app.results.latest);
  EXPECT_EQ(app.results.latest->kernel_id, "matmul/tiled");
  EXPECT_EQ(app.results.latest->launch.block,
            (BlockShape{32, 32, 1})); // the newest, whatever ran first
  EXPECT_FALSE(source.busy());
}

} // namespace
} // namespace wl::viz::test

namespace wl::viz {
namespace {

TEST(TeachingNotes, EachNotePointsAtThePanelsItNames) {
  EXPECT_EQ(
      panels_named_in("Bank grid: lanes 0 and 16 share bank 0. Timings: pad 0 against pad 1."),
      (std::vector<Panel>{Panel::timings, Panel::shared_memory}));
  EXPECT_EQ(panels_named_in("Global memory panel: 4 sectors per request; see the warp map."),
            (std::vector<Panel>{Panel::global_memory}));
  EXPECT_TRUE(panels_named_in("no panel here").empty());
  // Every bundled note that teaches a memory pattern points at its map.
  for (const char* id : {"coalescing/stride", "bank_conflicts/padded", "transpose/smem"}) {
    const std::vector<Panel> named = panels_named_in(find_kernel(id)->lesson);
    const Panel map =
        std::string(id).starts_with("coalescing") ? Panel::global_memory : Panel::shared_memory;
    EXPECT_NE(std::find(named.begin(), named.end(), map), named.end())
        << id << ": " << find_kernel(id)->lesson;
  }
}

} // namespace
} // namespace wl::viz
