// Stories of A/B sweeps and the Sweep panel's picture: another variant of the family swept over
// the same points, each point's ratio (and, for times, its verdict) drawn and carried in the
// sidecar; Export PNG saving the panel beside its figures.

#include "story_support.h"

namespace wl::viz::test {
namespace {

using nlohmann::json;

// transpose/smem against transpose/smem_padded over the tile's six block heights, from the models.
std::string transpose_ab(const std::string& more) {
  return "click \"transpose/smem\"\nwait\nclick \"Sweep\"\nset \"block x\" \"32\" in \"Sweep\"\n"
         "set \"block y\" \"1,2,4,8,16,32\" in \"Sweep\"\nclick \"against\" in \"Sweep\"\n"
         "click \"transpose/smem_padded\" in \"Sweep\"\nclick \"Model sweep\"\nwait\n"
         "click \"colour by\" in \"Sweep\"\nclick \"wavefronts per request\"\n" +
         more;
}

TEST(StorySweepAB, AVariantSweptAgainstTheKernelShowsEachPointsRatio) {
  const Story story = play("window 1280x720\n" + transpose_ab("screenshot a.png sweep\n"));
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  const json sweep = a["shown"]["sweep"];
  EXPECT_EQ(sweep["against"], "transpose/smem_padded");
  ASSERT_TRUE(sweep["comparison"].is_object()) << sweep;
  const json points = sweep["comparison"]["points"];
  ASSERT_EQ(points.size(), 6u);
  for (const json& p : points) // load tile 32 wavefronts and store tile 1, against 1 and 1
    EXPECT_NEAR(p["ratio"].get<double>(), 2.0 / 33.0, 1e-9) << p;
  EXPECT_FALSE(points[0].contains("verdict")); // wavefronts carry no noise: no verdict
  EXPECT_TRUE(says(a, "sweep", "transpose/smem against transpose/smem_padded, 6 points"));
  EXPECT_TRUE(says(a, "sweep", "x16.50 worse  to  x16.50 better"));
  EXPECT_EQ(a["shown"]["cut_off"], json::array());
}

TEST(StorySweepAB, AModelledTimeHasARatioButNoVerdictWithoutNoise) {
  const Story story = play(transpose_ab("click \"colour by\" in \"Sweep\"\n"
                                        "click \"modelled time at peak, sectors fetched (ms)\"\n"
                                        "screenshot a.png sweep\n"));
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json comparison = story.sidecar("a")["shown"]["sweep"]["comparison"];
  EXPECT_EQ(comparison["verdicts"], "FASTER at 0 points, SAME at 0, SLOWER at 0, UNSURE at 6")
      << comparison;
  EXPECT_NEAR(comparison["points"][0]["ratio"].get<double>(), 1.0, 1e-9); // same sectors
}

TEST(StorySweepAB, AVariantWithoutTheSweptParameterIsRefusedBesideTheControls) {
  const Story story = play(
      "click \"coalescing/stride\"\nwait\nclick \"Sweep\"\nset \"block x\" \"256\" in \"Sweep\"\n"
      "click \"parameter\" in \"Sweep\"\nclick \"stride\" in \"Sweep\"\n"
      "click \"against\" in \"Sweep\"\nclick \"coalescing/offset\" in \"Sweep\"\n"
      "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json sweep = story.sidecar("a")["shown"]["sweep"];
  EXPECT_NE(sweep["problem"].get<std::string>().find("coalescing/offset has no parameter 'stride'"),
            std::string::npos)
      << sweep;
  EXPECT_TRUE(says(story.sidecar("a"), "sweep", "has no parameter 'stride'"));
}

TEST(StorySweepAB, AnotherFamilyDropsTheVariant) {
  const Story story = play(transpose_ab("click \"vec_add/scalar\"\nwait\nclick \"Sweep\"\n"
                                        "screenshot a.png sweep\n"));
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["shown"]["sweep"]["against"], "");
}

TEST(StorySweepAB, ExportPngSavesThePanelAndItsSidecarIntoThePicturesFolder) {
  const Story story =
      play(transpose_ab("click \"Export PNG\" in \"Sweep\"\nscreenshot after.png\n"));
  ASSERT_EQ(story.exit_code, 0) << story.output;
  std::vector<std::filesystem::path> pictures;
  for (const auto& entry : std::filesystem::directory_iterator(story.dir / "pictures" / "WarpLens"))
    if (entry.path().extension() == ".png")
      pictures.push_back(entry.path());
  ASSERT_EQ(pictures.size(), 1u);
  const json sidecar = read_json(std::filesystem::path(pictures[0]).replace_extension(".json"));
  EXPECT_EQ(sidecar["screenshot"]["panel"], "sweep");
  EXPECT_EQ(sidecar["shown"]["sweep"]["comparison"]["points"].size(), 6u);
}

} // namespace
} // namespace wl::viz::test
