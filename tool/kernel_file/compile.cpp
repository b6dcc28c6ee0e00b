#include "kernel_file/compile.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/loaded_from.h"
#include "base/text_format.h"
#include "kernel_file/cubin_resources.h"

#include <cctype>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>

#ifdef WARPLENS_HAS_NVRTC
#include <nvrtc.h>
#endif

namespace wl {

#ifdef WARPLENS_HAS_NVRTC
namespace {

// An NVRTC call that failed for a reason of WarpLens's own making (not the file's): named.
void nvrtc_check(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS)
    throw UsageError(std::string(call) + " failed: " + nvrtcGetErrorString(result));
}

struct Program {
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle)
      nvrtcDestroyProgram(&handle);
  }
};

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  nvrtc_check(nvrtcGetProgramLogSize(program, &size), "nvrtcGetProgramLogSize");
  std::string log(size, '\0');
  nvrtc_check(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

// "saxpy.cu(12): error: identifier "x" is undefined" -> "saxpy.cu:12: error: identifier ...",
// the first error of the log, and how many more there are.
std::string first_error(const std::string& log, const std::string& file) {
  static const std::regex located(R"(^(.*)\((\d+)\): (error|catastrophic error): (.*)$)");
  std::istringstream lines(log);
  std::string line, first;
  int errors = 0;
  std::smatch m;
  while (std::getline(lines, line))
    if (std::regex_match(line, m, located)) {
      if (errors++ > 0)
        continue;
      // NVRTC compiles the kernel names the description gives in a unit of its own: an error
      // there is a name the file does not define.
      first =
          m[1].str() == "__nv_name_map"
              ? file +
                    ": a kernel the description names is not a __global__ function of "
                    "the file (" +
                    clip(m[4].str(), 200) + ")"
              : m[1].str() + ":" + m[2].str() + ": " + m[3].str() + ": " + clip(m[4].str(), 200);
    }
  if (errors == 0)
    return file + ": the compiler refused it: " + clip(log.empty() ? "no reason given" : log, 300);
  return first + (errors == 2  ? " (and 1 more error)"
                  : errors > 2 ? " (and " + std::to_string(errors - 1) + " more errors)"
                               : "");
}

// The toolkit's include folder found at build time (cuda_fp16.h and the like), or "".
#ifdef WARPLENS_CUDA_INCLUDE
constexpr const char* kCudaInclude = WARPLENS_CUDA_INCLUDE;
#else
constexpr const char* kCudaInclude = "";
#endif

std::vector<std::string> options_for(const KernelFileCompile& request) {
  std::vector<std::string> options = {"--gpu-architecture=sm_" + std::to_string(request.sm),
                                      "-lineinfo", "--std=c++17", "--ptxas-options=-v"};
  const std::filesystem::path folder = std::filesystem::path(request.file).parent_path();
  options.push_back("-I" + (folder.empty() ? std::string(".") : folder.string()));
  if (*kCudaInclude)
    options.push_back(std::string("-I") + kCudaInclude);
  // nvcc's host headers (math.h) define these, NVRTC has none: a file nvcc builds compiles here.
  options.push_back("-DINFINITY=__int_as_float(0x7f800000)");
  options.push_back("-DNAN=__int_as_float(0x7fffffff)");
  for (const auto& [name, value] : request.tunables)
    options.push_back("-D" + name + "=" + std::to_string(value));
  return options;
}

} // namespace
#endif

std::string with_tunables(const std::string& name,
                          const std::map<std::string, std::int64_t>& tunables) {
  std::string out;
  std::size_t i = 0;
  while (i < name.size()) {
    if (std::isalpha(static_cast<unsigned char>(name[i])) || name[i] == '_') {
      std::size_t end = i;
      while (end < name.size() &&
             (std::isalnum(static_cast<unsigned char>(name[end])) || name[end] == '_'))
        ++end;
      const std::string word = name.substr(i, end - i);
      const auto value = tunables.find(word);
      out += value == tunables.end() ? word : std::to_string(value->second);
      i = end;
    } else {
      out += name[i++];
    }
  }
  return out;
}

#ifdef WARPLENS_HAS_NVRTC
void warm_up_compiler() {
  try {
    compile_kernel_file({.text = "__global__ void warm_up() {}\n",
                         .file = "warm_up.cu",
                         .headers = {},
                         .kernels = {"warm_up"},
                         .tunables = {},
                         .sm = 90});
  } catch (const std::exception&) {
    // Only time was at stake: a real compile says what is wrong.
  }
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown (nvrtcVersion failed)";
  return format("%d.%d, %s", major, minor,
                loaded_from(reinterpret_cast<const void*>(&nvrtcVersion)).c_str());
}

SystemChecks check_compiler(int sm) {
  const auto compiles = [sm](const std::string& text) {
    compile_kernel_file({.text = text + "__global__ void doctor() {}\n",
                         .file = "doctor.cu",
                         .headers = {},
                         .kernels = {"doctor"},
                         .tunables = {},
                         .sm = sm});
  };
  const std::string target = "sm_" + std::to_string(sm);
  SystemChecks checks;
  try {
    compiles("");
    checks.push_back({"NVRTC", nvrtc_version() + "; compiles for " + target, ""});
  } catch (const Error& e) {
    checks.push_back({"NVRTC", nvrtc_version(),
                      std::string("cannot compile an empty kernel for ") + target + ": " +
                          e.what() + "; kernel files need NVRTC with its builtins library"});
    return checks;
  }
  try {
    compiles("#include <cuda_fp16.h>\n");
    checks.push_back({"CUDA headers", std::string(kCudaInclude) + " (cuda_fp16.h found)", ""});
  } catch (const Error&) {
    checks.push_back({"CUDA headers", std::string("none in ") + kCudaInclude,
                      "a kernel file that includes the toolkit's headers (cuda_fp16.h and the "
                      "like) needs them: install the CUDA toolkit's headers there"});
  }
  return checks;
}

CompiledKernelFile compile_kernel_file(const KernelFileCompile& request) {
  const auto start = std::chrono::steady_clock::now();
  Program program;
  // The headers the file includes are given as read with it (on a worker elsewhere they are not
  // on disk); a header not among them is looked for in the file's folder (-I).
  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : request.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  nvrtc_check(nvrtcCreateProgram(&program.handle, request.text.c_str(), request.file.c_str(),
                                 static_cast<int>(header_texts.size()), header_texts.data(),
                                 header_names.data()),
              "nvrtcCreateProgram");
  std::vector<std::string> names;
  for (const std::string& kernel : request.kernels) {
    names.push_back(with_tunables(kernel, request.tunables));
    nvrtc_check(nvrtcAddNameExpression(program.handle, names.back().c_str()),
                "nvrtcAddNameExpression");
  }
  const std::vector<std::string> options = options_for(request);
  std::vector<const char*> option_pointers;
  for (const std::string& option : options)
    option_pointers.push_back(option.c_str());
  // One compile at a time in a process: NVRTC's log lost its ptxas report now and then on the
  // H100 machine (two compiles at once, or another CUDA library busy in the process).
  static std::mutex one_at_a_time;
  std::unique_lock lock(one_at_a_time);
  const nvrtcResult compiled = nvrtcCompileProgram(
      program.handle, static_cast<int>(option_pointers.size()), option_pointers.data());
  CompiledKernelFile out;
  out.log = program_log(program.handle);
  lock.unlock();
  if (compiled != NVRTC_SUCCESS)
    throw UsageError(first_error(out.log, request.file));
  std::size_t size = 0;
  nvrtc_check(nvrtcGetCUBINSize(program.handle, &size), "nvrtcGetCUBINSize");
  out.cubin.resize(size);
  nvrtc_check(nvrtcGetCUBIN(program.handle, out.cubin.data()), "nvrtcGetCUBIN");
  const auto report = parse_ptxas_report(out.log);
  for (const std::string& name : names) {
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(program.handle, name.c_str(), &lowered) != NVRTC_SUCCESS || !lowered)
      throw UsageError(request.file + ": kernel '" + clip(name, 60) +
                       "' is not a __global__ "
                       "function of the file");
    out.lowered[name] = lowered;
    // From the cubin: the log's report has been seen missing (an empty log) on the H100 machine.
    // Spills and barriers, which only the report gives, come from it when it is there.
    std::optional<CompiledResources> usage = cubin_resources(out.cubin, lowered, request.sm);
    const auto reported = report.find(demangled_kernel_name(lowered));
    if (usage && reported != report.end() && !reported->second.empty()) {
      const CompiledResources& r = reported->second.begin()->second;
      usage->spill_store_bytes = r.spill_store_bytes;
      usage->spill_load_bytes = r.spill_load_bytes;
      usage->barriers = r.barriers;
    }
    if (usage)
      out.usage[name] = *usage;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

#else

// A build without the CUDA toolkit has no NVRTC: a kernel file is compiled by the worker that
// measures it, on a machine with CUDA.
namespace {
const char* const kNoCompiler = "this WarpLens was built without the CUDA toolkit, so it has no "
                                "NVRTC to compile kernel files here";
} // namespace

void warm_up_compiler() {}

std::string nvrtc_version() { return "none (built without the CUDA toolkit)"; }

SystemChecks check_compiler(int) {
  return {{"NVRTC", "none in this build (built without the CUDA toolkit)",
           "kernel files need a WarpLens built with the CUDA toolkit: run yours through a worker "
           "on such a machine (--worker \"ssh HOST warplens worker\")"}};
}

CompiledKernelFile compile_kernel_file(const KernelFileCompile& request) {
  throw UsageError(request.file + ": " + kNoCompiler +
                   "; a worker on a machine with CUDA compiles and measures it (--worker \"ssh "
                   "HOST warplens worker\")");
}
#endif

} // namespace wl
