// `warplens --version` and `warplens doctor` as a person runs them: every line there, each check
// ok or its fix under it, the exit code saying whether something needs fixing, and a check that
// reads a person's file without changing it.

#include "test_support.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace wl {
namespace {

using test::contains;
using test::run_warplens;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("warplens_doctor_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "warplens");
  return dir;
}

TEST(Version, NamesWarpLensAndEachCudaLibraryWithItsFile) {
  WL_SKIP_WITHOUT_ENGINE(); // NoToolkit.* checks what that build says
  const test::CommandResult r = run_warplens("--version");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  EXPECT_TRUE(lines[0].starts_with("WarpLens ")) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("CUDA runtime 13.")) << lines[1];
  EXPECT_TRUE(lines[2].starts_with("NVIDIA driver")) << lines[2];
  EXPECT_TRUE(lines[3].starts_with("CUPTI 13.") && contains(lines[3], "libcupti")) << lines[3];
  EXPECT_TRUE(lines[4].starts_with("NVRTC 13.") && contains(lines[4], "libnvrtc")) << lines[4];
}

TEST(Doctor, EveryCheckIsOkOrHasItsFixAndTheExitCodeSaysWhich) {
  // The EGL check makes a context with Mesa, whose leak at exit no suppression can name
  // (tests/sanitize/lsan.supp): under the sanitizers the leak check would end the process before
  // its last line and exit code.
  const test::CommandResult r = run_warplens("doctor", "ASAN_OPTIONS=detect_leaks=0 ");
  int fixes = 0;
  for (const char* what :
       {"WarpLens", "NVIDIA driver", "nvdisasm", "assets", "display", "EGL", "settings"})
    EXPECT_TRUE(contains(r.out, std::string("ok   ") + what) ||
                contains(r.out, std::string("FIX  ") + what))
        << what << "\n"
        << r.out;
  const std::vector<std::string> lines = lines_of(r.out);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with("FIX  ")) {
      ++fixes;
      ASSERT_LT(i + 1, lines.size());
      EXPECT_TRUE(contains(lines[i + 1], "-> ")) << "a fix under " << lines[i];
    }
  EXPECT_EQ(r.exit_code, fixes == 0 ? 0 : 1) << r.out;
  EXPECT_TRUE(contains(r.out, fixes == 0 ? "all ok" : std::to_string(fixes) + " to fix")) << r.out;
}

TEST(Doctor, ADamagedSettingsFileIsReportedAndLeftAsItIs) {
  const auto dir = scratch("settings");
  const auto file = dir / "warplens" / "settings.json";
  { std::ofstream(file) << "{\"theme\": \"purple\""; }
  const test::CommandResult r = run_warplens("doctor", "XDG_CONFIG_HOME=" + dir.string() + " ");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "FIX  settings       " + file.string())) << r.out;
  EXPECT_TRUE(contains(r.out, "the GUI would not use it as it is")) << r.out;
  EXPECT_TRUE(contains(r.out, "mend or delete the file")) << r.out;
  EXPECT_FALSE(contains(r.out, "kept as")) << "nothing was moved: " << r.out;
  std::ifstream in(file);
  std::stringstream kept;
  kept << in.rdbuf();
  EXPECT_EQ(kept.str(), "{\"theme\": \"purple\"");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "warplens"), {}), 1)
      << "nothing moved aside or added";
  std::filesystem::remove_all(dir);
}

TEST(Doctor, WithoutADisplayItSaysTheHeadlessModeStillWorks) {
  const test::CommandResult r = run_warplens("doctor", "env -u DISPLAY -u WAYLAND_DISPLAY ");
  EXPECT_TRUE(contains(r.out, "FIX  display        none (DISPLAY and WAYLAND_DISPLAY are not set)"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "warplens --headless")) << r.out;
}

TEST(Doctor, AnAssetsFolderWithoutPresetsIsItsOwnLineAndTheRestStillRuns) {
  const auto dir = scratch("assets");
  const test::CommandResult r = run_warplens("doctor", "WARPLENS_ASSETS=" + dir.string() + " ");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "FIX  assets         unusable")) << r.out;
  EXPECT_TRUE(contains(r.out, "has no arch/ folder")) << r.out;
  EXPECT_TRUE(contains(r.out, "settings")) << "the checks after it ran: " << r.out;
  std::filesystem::remove_all(dir);
}

TEST(Doctor, ASettingsLinkToNothingIsSaidToBeOne) {
  const auto dir = scratch("link");
  std::filesystem::create_symlink(dir / "gone.json", dir / "warplens" / "settings.json");
  const test::CommandResult r = run_warplens("doctor", "XDG_CONFIG_HOME=" + dir.string() + " ");
  EXPECT_TRUE(
      contains(r.out, "is a link to " + (dir / "gone.json").string() + ", which does not exist"))
      << r.out;
  std::filesystem::remove_all(dir);
}

// CUDA_HOME set to a folder that holds no toolkit: the search goes on to the next place, and the
// doctor and a kernel file's model say so instead of passing it over without a word.
TEST(Doctor, ACudaHomeThatIsNoToolkitIsNamedWithWhatIsUsedInstead) {
  WL_SKIP_WITHOUT_ENGINE();
  const auto dir = scratch("cuda_home");
  const std::string env = "ASAN_OPTIONS=detect_leaks=0 CUDA_HOME=" + dir.string() + " ";
  const test::CommandResult doctor = run_warplens("doctor", env);
  EXPECT_EQ(doctor.exit_code, 1) << doctor.out;
  EXPECT_TRUE(contains(doctor.out, "CUDA_HOME=" + dir.string() +
                                       " holds no bin/nvcc.profile naming include folders"))
      << doctor.out;
  const test::CommandResult model =
      run_warplens("model " + std::string(WARPLENS_SOURCE_ASSETS) + "/../examples/saxpy.cu", env);
  EXPECT_EQ(model.exit_code, 0) << model.out;
  EXPECT_TRUE(contains(model.out, "warplens: note: CUDA_HOME=" + dir.string())) << model.out;
  std::filesystem::remove_all(dir);
}

// An X server that takes the connection and never answers (a stale forwarded display): the
// display's line says so after its 5 s, and the lines after it still come.
TEST(Doctor, ADisplayThatNeverAnswersCostsItsOwnLineOnly) {
  const std::filesystem::path sockets = "/tmp/.X11-unix";
  std::filesystem::create_directories(sockets);
  const int number = 700 + getpid() % 200;
  const std::filesystem::path socket_path = sockets / ("X" + std::to_string(number));
  std::filesystem::remove(socket_path);
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 8), 0); // connections wait in the backlog, never answered
  const auto start = std::chrono::steady_clock::now();
  const test::CommandResult r =
      run_warplens("doctor", "DISPLAY=:" + std::to_string(number) + " timeout 60 ");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(listener);
  std::filesystem::remove(socket_path);
  EXPECT_TRUE(contains(r.out, "FIX  display        no answer within 5 s")) << r.out;
  EXPECT_TRUE(contains(r.out, "settings")) << r.out;
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_LT(seconds, 30) << r.out;
}

} // namespace
} // namespace wl
