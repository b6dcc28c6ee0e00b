// A real window under Xvfb, driven by xdotool as a person's mouse and keyboard: it opens, a click
// in the Launch tree switches the kernel, F5 runs it, F12 saves a screenshot. The positions come
// from the screenshot sidecar's list of controls, as a person reads them off the screen. Skipped,
// with the reason, where Xvfb or xdotool is missing or no X server starts.

#include "gui_test_support.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace wl::viz::test {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

bool have(const char* program) {
  return std::system((std::string("command -v ") + program + " >/dev/null 2>&1").c_str()) == 0;
}

// A child process started with a shell command; killed (TERM, then KILL) when it goes.
class Child {
public:
  explicit Child(const std::string& command) {
    m_pid = fork();
    if (m_pid == 0) {
      setpgid(0, 0);
      execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Child() { stop(); }
  // SIGTERM, and the exit code (or -1 when it had to be killed).
  int stop() {
    if (m_pid <= 0)
      return m_code;
    kill(m_pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100 && waitpid(m_pid, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(50ms);
    if (waitpid(m_pid, &status, WNOHANG) == 0) {
      kill(-m_pid, SIGKILL);
      waitpid(m_pid, &status, 0);
      m_code = -1;
    } else {
      m_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    m_pid = 0;
    return m_code;
  }
  bool running() const { return m_pid > 0 && waitpid(m_pid, nullptr, WNOHANG) == 0; }

private:
  pid_t m_pid = 0;
  int m_code = -1;
};

std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe))
      out += buffer;
    pclose(pipe);
  }
  return out.substr(0, out.find_last_not_of('\n') + 1);
}

struct Desktop {
  std::string display, window;
  std::filesystem::path pictures;

  std::string xdotool(const std::string& args) const {
    return output_of("DISPLAY=" + display + " xdotool " + args + " 2>&1");
  }

  // F12, then the newest sidecar in the pictures folder.
  json screenshot_sidecar() const {
    std::size_t before = count();
    xdotool("key --window " + window + " F12");
    // Software rendering of a first frame can take seconds on a loaded machine.
    for (int i = 0; i < 300 && count() == before; ++i)
      std::this_thread::sleep_for(100ms);
    std::filesystem::path newest;
    std::error_code missing; // no folder yet: F12 saved nothing
    for (const auto& entry : std::filesystem::directory_iterator(pictures, missing))
      if (entry.path().extension() == ".json" &&
          (newest.empty() ||
           std::filesystem::last_write_time(entry) > std::filesystem::last_write_time(newest)))
        newest = entry.path();
    return newest.empty() ? json() : read_json(newest);
  }

  std::size_t count() const {
    std::error_code error;
    if (!std::filesystem::is_directory(pictures, error))
      return 0;
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(pictures))
      n += entry.path().extension() == ".json";
    return n;
  }

  // Clicks the control with this label where the sidecar says it is; false when it is not there.
  bool click(const json& sidecar, const std::string& label) const {
    for (const json& c : sidecar["shown"]["controls"])
      if (c["label"] == label) {
        xdotool("mousemove --window " + window + " " + std::to_string(c["x"].get<int>()) + " " +
                std::to_string(c["y"].get<int>()) + " click 1");
        std::this_thread::sleep_for(300ms);
        return true;
      }
    return false;
  }
};

TEST(WindowUnderXvfb, OpensSwitchesKernelRunsAndSavesAScreenshot) {
  for (const char* program : {"Xvfb", "xdotool"})
    if (!have(program))
      GTEST_SKIP() << program << " is not installed (Debian packages xvfb and xdotool)";
  const std::filesystem::path home = scratch_dir();
  const std::string display = ":" + std::to_string(200 + getpid() % 500);
  Child xvfb("Xvfb " + display + " -screen 0 1440x900x24 -nolisten tcp >/dev/null 2>&1");
  bool started = false;
  for (int i = 0; i < 50 && !started; ++i) {
    std::this_thread::sleep_for(100ms);
    started =
        std::system(("DISPLAY=" + display + " xdotool getmouselocation >/dev/null 2>&1").c_str()) ==
        0;
  }
  if (!started)
    GTEST_SKIP() << "no X server started on " << display;
  Desktop desktop{display, "", home / "pictures" / "WarpLens"};
  Child gui("env DISPLAY=" + display + " HOME=" + home.string() +
            " XDG_CONFIG_HOME=" + (home / "config").string() +
            " XDG_PICTURES_DIR=" + (home / "pictures").string() + " " + WARPLENS_BINARY +
            " --kernel vec_add/scalar > " + (home / "gui.log").string() + " 2>&1");
  for (int i = 0; i < 100 && desktop.window.empty(); ++i) {
    std::this_thread::sleep_for(100ms);
    desktop.window = output_of("DISPLAY=" + display +
                               " xdotool search --name '^WarpLens$' 2>/dev/null | head -1");
  }
  ASSERT_FALSE(desktop.window.empty())
      << "no window appeared; " << output_of("cat " + (home / "gui.log").string());
  std::this_thread::sleep_for(1s); // the first frames and the first result

  json shot = desktop.screenshot_sidecar();
  ASSERT_TRUE(shot.is_object()) << "F12 saved nothing";
  EXPECT_EQ(shot["configuration"]["kernel"], "vec_add/scalar");
  ASSERT_TRUE(desktop.click(shot, "coalescing")) << shot["shown"]["controls"];
  // The family opens on the next frames; on a loaded machine software rendering may take a while.
  bool clicked = false;
  for (int i = 0; i < 30 && !clicked; ++i) {
    shot = desktop.screenshot_sidecar();
    clicked = desktop.click(shot, "coalescing/stride");
  }
  ASSERT_TRUE(clicked) << shot["shown"]["controls"];
  desktop.xdotool("key --window " + desktop.window + " F5");
  for (int i = 0; i < 50; ++i) { // until the run of the new kernel is on screen
    shot = desktop.screenshot_sidecar();
    if (shot["result"].is_object() && shot["result"]["kernel"] == "coalescing/stride")
      break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(shot["configuration"]["kernel"], "coalescing/stride");
  EXPECT_EQ(shot["result"]["kernel"], "coalescing/stride");
  EXPECT_EQ(shot["error"], "");
  // A block typed into its field, mended and confirmed with Enter, each key a quick tap: many keys
  // arrive between two frames, and the field must still see Ctrl+A, the digits in their order
  // (the same digit twice), Home, Delete and Enter.
  ASSERT_TRUE(desktop.click(shot, "block")) << shot["shown"]["controls"];
  const std::string to_window = " --window " + desktop.window + " ";
  desktop.xdotool("key --delay 0" + to_window + "ctrl+a 1 1 2 8 Home Delete Return");
  shot = desktop.screenshot_sidecar();
  EXPECT_EQ(shot["configuration"]["block"], "128") << shot["status"];
  EXPECT_EQ(shot["screenshot"]["width"], 1440);
  if (have("import")) // the whole screen as the X server shows it, for a person to look at
    std::system(
        ("DISPLAY=" + display + " import -window root " + (home / "screen.png").string()).c_str());
  EXPECT_EQ(gui.stop(), 0) << output_of("cat " + (home / "gui.log").string());
  EXPECT_TRUE(std::filesystem::exists(home / "config" / "warplens" /
                                      "settings.json")); // saved on the way out
}

} // namespace
} // namespace wl::viz::test
