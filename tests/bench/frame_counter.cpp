// Counts the frames a GUI draws, for the idle test and benchmark: loaded with LD_PRELOAD, it
// stands in for glfwSwapBuffers, calls the real one, and keeps the count so far in the file that
// WARPLENS_FRAME_COUNT_FILE names (rewritten at each frame, so a reader sees the latest count).
// WarpLens itself has no hook for this: the count comes from outside, as a person's tool would.
#include <cstdio>
#include <cstdlib>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

struct GLFWwindow;

extern "C" void glfwSwapBuffers(GLFWwindow* window) {
  using SwapBuffers = void (*)(GLFWwindow*);
  static const auto real = reinterpret_cast<SwapBuffers>(dlsym(RTLD_NEXT, "glfwSwapBuffers"));
  static long frames = 0;
  static int fd = [] {
    const char* file = std::getenv("WARPLENS_FRAME_COUNT_FILE");
    return file ? open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  }();
  real(window);
  ++frames;
  if (fd >= 0) {
    char text[32];
    const int n = std::snprintf(text, sizeof text, "%ld\n", frames);
    if (pwrite(fd, text, static_cast<std::size_t>(n), 0) < 0)
      fd = -1;
  }
}
