#include "kernel_file/compile.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/loaded_from.h"
#include "base/text_format.h"
#include "base/text_scan.h"
#include "kernel_file/cubin_resources.h"
#include "kernel_file/include_check.h"
#include "kernel_file/toolkit_headers.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cxxabi.h>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
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

// One line of NVRTC's log that names an error: "FILE(LINE): error: MESSAGE" (or "catastrophic
// error"), its parts as written; the line stays text, since `#line` can set any number.
struct LoggedError {
  std::string_view file, line, kind, message;
};

std::optional<LoggedError> logged_error(std::string_view row) {
  for (const std::string_view kind : {"error", "catastrophic error"}) {
    const std::string marker = std::string("): ") + std::string(kind) + ": ";
    for (std::size_t close = row.find(marker); close != std::string_view::npos;
         close = row.find(marker, close + 1)) {
      const std::size_t open = row.rfind('(', close);
      if (open == std::string_view::npos || open + 1 == close)
        continue;
      const std::string_view digits = row.substr(open + 1, close - open - 1);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return LoggedError{row.substr(0, open), digits, kind, row.substr(close + marker.size())};
    }
  }
  return std::nullopt;
}

// Where a file holds a byte that is not UTF-8 (a 0xFF in a comment), NVRTC compiles it but finds
// none of its kernels by name: said, with the byte and its line. "" for a UTF-8 text.
std::string non_utf8_note(const std::string& text) {
  int line = 1;
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const int more = byte < 0x80           ? 0
                     : (byte >> 5) == 0x6  ? 1
                     : (byte >> 4) == 0xE  ? 2
                     : (byte >> 3) == 0x1E ? 3
                                           : -1;
    bool whole = more >= 0 && at + more < text.size() && (more == 0 || byte > 0xC1);
    for (int i = 1; whole && i <= more; ++i)
      whole = (static_cast<unsigned char>(text[at + i]) >> 6) == 0x2;
    if (!whole)
      return format("; its line %d holds the byte 0x%02X, which is not UTF-8 and stops the "
                    "compiler finding its kernels: remove it",
                    line, byte);
    line += byte == '\n';
    at += static_cast<std::size_t>(more) + 1;
  }
  return "";
}

// The most static shared memory a kernel may declare: ptxas refuses more ("uses too much shared
// data (0xc004 bytes, 0xc000 max)"), and NVRTC drops that line from its log.
constexpr std::int64_t kMostStaticShared = 48 * 1024;

// "_Z1kifPKfPf" -> "k": a kernel's name as the file writes it, from the name ptxas reports.
std::string kernel_name_of(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> plain(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !plain)
    return mangled; // an extern "C" kernel's name is its own
  const std::string name(plain.get());
  return name.substr(0, name.find('('));
}

// From ptxas's report ("Compiling entry function '_Z1kifPKfPf' ..." then "Used 14 registers, used
// 1 barriers, 49156 bytes smem"): the first kernel over the static shared-memory limit, said; ""
// where none is.
std::string static_shared_over_limit(const std::string& log) {
  std::string function, said;
  for_each_line(log, [&](std::string_view row) {
    TextScan scan(row);
    if (scan.skip_past("Compiling entry function '")) {
      function = std::string(scan.until('\''));
      return;
    }
    const std::size_t smem = row.find(" bytes smem");
    if (!said.empty() || smem == std::string_view::npos)
      return;
    const std::size_t digits = row.find_last_not_of("0123456789", smem - 1) + 1;
    const std::string number(row.substr(digits, smem - digits));
    if (number.empty() || number.size() > 12 || std::stoll(number) <= kMostStaticShared)
      return;
    said = "kernel " + clip(kernel_name_of(function), 80) + " declares " + group_digits(number) +
           " bytes of static __shared__ memory, over the 49,152 (48 KiB) a kernel may declare: "
           "give the rest as dynamic shared memory (extern __shared__, and the description's "
           "`shared` line)";
  });
  return said;
}

// The reason of a log with no error at a line: ptxas's own ("ptxas error   : Entry function ...
// uses too much shared data"), which follows its report of every kernel, else a kernel over
// the static shared-memory limit in that report, else the whole log.
std::string unlocated_error(const std::string& log) {
  std::string found;
  for_each_line(log, [&](std::string_view row) {
    if (found.empty() && (row.starts_with("ptxas error") || row.starts_with("ptxas fatal")))
      found = std::string(row);
  });
  if (found.empty())
    found = static_shared_over_limit(log);
  return !found.empty() ? found : log.empty() ? "no reason given" : log;
}

// "saxpy.cu(12): error: identifier "x" is undefined" -> "saxpy.cu:12: error: identifier ...",
// the first error of the log, and how many more there are.
// Why a header was not found: where it is one of C++'s own (<vector>, <cstdio>), NVRTC compiles
// device code alone, and the host's standard library is not for it (libcu++ has device
// counterparts of many under cuda/std/); any other, where no CUDA toolkit was found, is the
// toolkit's own (cooperative_groups.h, cub/...) or the file's. "" otherwise.
std::string header_hint(std::string_view message) {
  TextScan scan(message);
  if (!scan.skip_past("cannot open source file \"")) {
    scan = TextScan(message);
    if (!scan.skip_past("could not open source file \""))
      return "";
  }
  const std::string name(scan.until('"'));
  const bool host_like =
      !name.empty() && name.find('/') == std::string::npos && name.find('.') == std::string::npos;
  if (!host_like)
    return toolkit_headers().folders.empty()
               ? " (no CUDA toolkit was found" +
                     (toolkit_headers().passed_over.empty()
                          ? std::string()
                          : " (" + toolkit_headers().passed_over + ")") +
                     ", whose include folders hold the headers of cooperative groups, cuda/std, "
                     "CUB, cuda_fp16.h: install it or set CUDA_HOME to it; `warplens doctor` "
                     "checks it)"
               : "";
  for (const std::string& folder : toolkit_headers().folders) {
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::path(folder) / "cuda" / "std" / name, error))
      return " (a host-only standard header: NVRTC compiles device code, for which the toolkit "
             "has <cuda/std/" +
             name + ">)";
  }
  return " (a host-only standard header: NVRTC compiles device code, which cannot use it)";
}

std::string first_error(const std::string& log, const std::string& program,
                        const std::string& file) {
  std::string first;
  int errors = 0;
  for_each_line(log, [&](std::string_view row) {
    const std::optional<LoggedError> e = logged_error(row);
    if (!e || errors++ > 0)
      return;
    // NVRTC compiles the kernel names the description gives in a unit of its own: an error
    // there is a name the file does not define.
    first = e->file == "__nv_name_map"
                ? file +
                      ": a kernel the description names is not a __global__ function of the "
                      "file (" +
                      clip(e->message, 200) + ")"
                : clip(e->file == program ? file : e->file, 200) + ":" + clip(e->line, 20) + ": " +
                      std::string(e->kind) + ": " + clip(e->message, 200) + header_hint(e->message);
  });
  if (errors == 0)
    return file + ": the compiler refused it: " + clip(unlocated_error(log), 300);
  return first + (errors == 2  ? " (and 1 more error)"
                  : errors > 2 ? " (and " + std::to_string(errors - 1) + " more errors)"
                               : "");
}

// The name NVRTC knows the file by: its file name in a folder that cannot exist, since a path
// through /dev/null (no folder) is refused by the system. NVRTC looks for a quoted include
// beside the source that includes it, so in the file's own folder it would open whatever is there
// (a FIFO waits for ever; a worker elsewhere has no such folder), while --no-source-include
// would also stop the toolkit's headers finding their neighbours. The line table keeps the file
// name, which is all the per-line pass compares.
std::string program_name(const std::string& file) {
  return "/dev/null/" + std::filesystem::path(file).filename().string();
}

std::vector<std::string> options_for(const KernelFileCompile& request) {
  std::vector<std::string> options = {"--gpu-architecture=sm_" + std::to_string(request.sm),
                                      "-lineinfo", "--std=c++17", "--ptxas-options=-v"};
  for (const std::string& folder : toolkit_headers().folders)
    options.push_back("-I" + folder);
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
std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown (nvrtcVersion failed)";
  return format("%d.%d, %s", major, minor,
                loaded_from(reinterpret_cast<const void*>(&nvrtcVersion)).c_str());
}

// A header of each family the toolkit ships for device code, which `doctor` compiles.
constexpr const char* kToolkitHeaderFamilies[] = {
    "cuda_fp16.h",          "cuda_bf16.h", "cooperative_groups.h",
    "cuda/std/type_traits", "cuda/atomic", "cub/block/block_reduce.cuh"};

SystemChecks check_compiler(int sm) {
  // In this process and never from the kept compiles: what is checked is NVRTC and the headers.
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
  const ToolkitHeaders& toolkit = toolkit_headers();
  if (toolkit.folders.empty()) {
    checks.push_back({"CUDA headers", toolkit.source,
                      (toolkit.passed_over.empty() ? "" : toolkit.passed_over + "; ") +
                          "a kernel file that includes the toolkit's headers (cuda_fp16.h, "
                          "cooperative_groups.h, cuda/std, CUB) needs the CUDA toolkit: install "
                          "it, or set CUDA_HOME to where it is"});
    return checks;
  }
  // One header of each family the toolkit ships for device code, as a kernel file includes it.
  std::string missing;
  for (const char* header : kToolkitHeaderFamilies) {
    try {
      compiles(std::string("#include <") + header + ">\n");
    } catch (const Error& e) {
      missing += (missing.empty() ? "" : "; ") + std::string(header) + ": " + clip(e.what(), 160);
    }
  }
  std::string folders;
  for (const std::string& folder : toolkit.folders)
    folders += (folders.empty() ? "" : ", ") + folder;
  std::string fix;
  if (!missing.empty())
    fix = "these do not compile: " + missing + "; reinstall the CUDA toolkit's headers there";
  else if (!toolkit.passed_over.empty())
    fix = toolkit.passed_over + ", so these are " + toolkit.root +
          "'s: set it to the toolkit you mean, or unset it";
  checks.push_back({"CUDA headers", folders + " (from " + toolkit.source + ")", fix});
  return checks;
}

// Refuses a file (or one of its headers) that includes what NVRTC would open outside the
// headers given with it: here and on a worker alike, whatever the client checked.
void check_includes(const KernelFileCompile& request) {
  std::set<std::string> given;
  for (const auto& [name, text] : request.headers)
    given.insert(name);
  if (const std::string problem = refused_include(request.text, given); !problem.empty())
    throw UsageError(request.file + ": " + problem);
  for (const auto& [name, text] : request.headers)
    if (const std::string problem = refused_include(text, given); !problem.empty())
      throw UsageError(request.file + ": its header '" + clip(name, 40) + "', " + problem);
}

CompiledKernelFile compile_kernel_file(const KernelFileCompile& request) {
  check_includes(request);
  const auto start = std::chrono::steady_clock::now();
  Program program;
  // The headers the file includes are given as read with it (on a worker elsewhere they are not
  // on disk), and the toolkit's are found through -I; nothing else is opened.
  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : request.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  const std::string name = program_name(request.file);
  nvrtc_check(nvrtcCreateProgram(&program.handle, request.text.c_str(), name.c_str(),
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
  if (compiled == NVRTC_ERROR_OUT_OF_MEMORY)
    throw UsageError(request.file + ": the compiler ran out of memory compiling it");
  if (compiled != NVRTC_SUCCESS)
    throw UsageError(first_error(out.log, name, request.file));
  std::size_t size = 0;
  nvrtc_check(nvrtcGetCUBINSize(program.handle, &size), "nvrtcGetCUBINSize");
  out.cubin.resize(size);
  nvrtc_check(nvrtcGetCUBIN(program.handle, out.cubin.data()), "nvrtcGetCUBIN");
  std::size_t ptx_size = 0;
  nvrtc_check(nvrtcGetPTXSize(program.handle, &ptx_size), "nvrtcGetPTXSize");
  out.ptx.resize(ptx_size);
  nvrtc_check(nvrtcGetPTX(program.handle, out.ptx.data()), "nvrtcGetPTX");
  while (!out.ptx.empty() && out.ptx.back() == '\0')
    out.ptx.pop_back();
  const auto report = parse_ptxas_report(out.log);
  for (const std::string& name : names) {
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(program.handle, name.c_str(), &lowered) != NVRTC_SUCCESS || !lowered)
      throw UsageError(request.file + ": kernel '" + clip(name, 60) +
                       "' is not a __global__ function of the file" + non_utf8_note(request.text));
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
