// Hostile kernel files and headers, through the real binary: long runs of one character where the
// compiler's log, the includes and the template names are read (a recursive matcher ended the
// process on its stack), headers that are FIFOs or lie outside the file's folder, a kernel file
// that is no regular file, and compiles that would run without end or take all memory. Each is one
// line and exit 2 (or a model), never a signal or a hang.

#include "hostile_support.h"
#include "kernel_file/compile_server.h"
#include "kernel_file/file_kernel.h"
#include "kernel_file/include_check.h"
#include "model/kernel_resources.h"
#include "model/sass_text.h"

#include <sys/stat.h>

namespace wl {
namespace {

using test::expect_refusal;
using test::run_limited;
using test::scratch;
using test::write_file;

// A valid kernel file; `extra` goes after its kernel.
std::string kernel_file(const std::string& extra) {
  return "// @warplens kernel scale\n"
         "// @warplens size n = 4096\n"
         "// @warplens arg out: out float[n]\n"
         "// @warplens arg n: int = n\n"
         "// @warplens grid ceil_div(n, block.x)\n"
         "// @warplens check none\n"
         "__global__ void scale(float* out, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = 2.0f * i;\n"
         "}\n" +
         extra;
}

const std::string kRun(60000, 'a'); // past the 26 KB at which the matcher's stack ran out

struct LongTextCase {
  std::string name, extra;
  int exit_code;
};

class HostileLongText : public testing::TestWithParam<LongTextCase> {};

TEST_P(HostileLongText, IsReadWithoutEndingTheProcess) {
  const LongTextCase& c = GetParam();
  const std::string file = write_file(c.name + ".cu", kernel_file(c.extra));
  const test::Outcome o = run_limited("model " + file);
  EXPECT_EQ(o.exit_code, c.exit_code) << o.err;
  if (c.exit_code == 2)
    expect_refusal(o, 2, {file});
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HostileLongText,
    testing::Values(
        LongTextCase{"CommentAfterTemplate", "// template <" + kRun + "\n", 0},
        LongTextCase{"TemplateParameters",
                     "template <int " + kRun + ">\n__device__ int f() { return 0; }\n", 0},
        LongTextCase{"UnclosedQuotedInclude", "#include \"" + kRun + "\n", 2},
        LongTextCase{"StaticAssertMessage", "static_assert(false, \"" + kRun + "\");\n", 2},
        LongTextCase{"UndefinedIdentifier", "__device__ int g() { return " + kRun + "; }\n", 2}),
    test::case_name<LongTextCase>);

// What ptxas and nvdisasm write is read with loops too: a kernel's name is the person's.
TEST(HostileLongText, ThePtxasReportAndTheListingReadLongNames) {
  const std::string name = "_Z" + std::to_string(kRun.size()) + kRun + "v";
  const ResourceTable table =
      parse_ptxas_report("ptxas info    : Compiling entry function '" + name + "' for 'sm_90'\n" +
                         "ptxas info    : Function properties for " + name + "\n" +
                         "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
                         "ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem\n");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table.begin()->second.at(90).registers, 12);
  EXPECT_EQ(table.begin()->second.at(90).barriers, 1);
  EXPECT_EQ(table.begin()->second.at(90).static_shared_bytes, 4096);
  const SassListing listing = parse_nvdisasm(
      "\t.text." + name + ":\n" + "        //## File \"/x/" + kRun + ".cu\", line 12\n" +
      "        /*0040*/  LDG.E R2, desc[UR4][R2.64] " + kRun + " ;  /* 0x000 */\n");
  ASSERT_EQ(listing.functions.count(name), 1u);
  const std::vector<SassLine>& lines = listing.functions.at(name);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].pc, 0x40u);
  EXPECT_EQ(lines[0].line, 12);
  EXPECT_TRUE(lines[0].text.starts_with("LDG.E R2"));
}

// `#line` sets any number: one past an int's range is said as written, not parsed.
TEST(HostileCompileLog, ALineNumberPastAnIntIsNamedAsWritten) {
  const std::string file =
      write_file("far_line.cu", kernel_file("#line 3000000000\nint oops =;\n"));
  expect_refusal(run_limited("model " + file), 2, {"3000000000", "error"});
}

void make_fifo(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  std::filesystem::remove(path);
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << path;
}

// A FIFO opened to be read waits for a writer that never comes: beside the file, in a subfolder
// or found by <>, a header that is one is refused (or never opened), not waited on.
TEST(HostileHeaders, AHeaderThatIsAFifoIsRefusedNotWaitedOn) {
  const std::filesystem::path dir = scratch() / "fifo_headers";
  make_fifo(dir / "beside.cuh");
  make_fifo(dir / "sub" / "under.cuh");
  make_fifo(dir / "angled.cuh");
  for (const auto& [name, include] :
       std::vector<std::pair<std::string, std::string>>{{"beside", "\"beside.cuh\""},
                                                        {"under", "\"sub/under.cuh\""},
                                                        {"angled", "<angled.cuh>"}}) {
    const std::filesystem::path file = dir / (name + ".cu");
    std::ofstream(file) << "#include " + include + "\n" + kernel_file("");
    const test::Outcome o = run_limited("model " + file.string());
    expect_refusal(o, 2, {name});
    if (name != "angled") {
      EXPECT_NE(o.err.find("FIFO"), std::string::npos) << o.err;
    }
  }
}

TEST(HostileHeaders, AKernelFileThatIsAFifoIsNamedAsOne) {
  make_fifo(scratch() / "pipe.cu");
  expect_refusal(run_limited("model " + (scratch() / "pipe.cu").string()), 2,
                 {"pipe.cu", "is a FIFO", "not a regular file"});
}

// A file's headers travel with it to a worker (maybe another machine): one outside its folder is
// refused, never read and sent.
TEST(HostileHeaders, AHeaderOutsideTheFilesFolderIsRefused) {
  const std::filesystem::path dir = scratch() / "inside";
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(scratch() / "secret.h") << "#define SECRET 1\n";
  std::filesystem::remove(dir / "link.h");
  std::filesystem::create_symlink(scratch() / "secret.h", dir / "link.h");
  for (const std::string& name : {std::string("/etc/hostname"), std::string("../secret.h"),
                                  std::string("sub/../../secret.h"), std::string("link.h")}) {
    const std::filesystem::path file = dir / "outside.cu";
    std::ofstream(file) << "#include \"" + name + "\"\n" + kernel_file("");
    EXPECT_THROW(read_kernel_file(file), UsageError) << name;
    expect_refusal(run_limited("model " + file.string()), 2,
                   {"#include \"" + name + "\" is outside the file's folder"});
  }
  // One in a subfolder is the file's own.
  std::ofstream(dir / "sub" / "mine.h") << "#define MINE 1\n";
  std::ofstream(dir / "inside.cu") << "#include \"sub/mine.h\"\n" + kernel_file("");
  EXPECT_EQ(read_kernel_file(dir / "inside.cu").headers.count("sub/mine.h"), 1u);
}

// The defect: only `#include "path"` at a line's start was checked, so an outside header came in
// through angle brackets, a macro, the digraph %:, a backslash-newline splitting the directive, or
// a header beside the file that did one of those; NVRTC opened each (here, and on a worker from a
// request's text). Every include directive is read as the preprocessor reads it.
TEST(HostileHeaders, EveryFormOfAnOutsideIncludeIsRefused) {
  for (const std::string& text :
       {std::string("#include </etc/hostname>\n"),
        std::string("#define H \"/etc/hostname\"\n#include H\n"),
        std::string("%:include \"/etc/hostname\"\n"),
        std::string("#inc\\\nlude \"/etc/hostname\"\n"),
        std::string("  #  include_next <../secret.h>\n"),
        std::string("/* a */ #include \"../x.h\"\n"), std::string("#import \"/etc/hostname\"\n")})
    EXPECT_NE(refused_include(text), "") << text;
  EXPECT_TRUE(test::contains(refused_include("#define H \"x.h\"\n#include H\n"),
                             "line 2: #include H is refused: an include through a macro"));
  EXPECT_TRUE(test::contains(refused_include("\n#include </etc/hostname>\n"),
                             "line 2: #include </etc/hostname> names a path outside the file's "
                             "folder"));
  // The toolkit's headers, a header beside the file, and what only looks like an include.
  for (const std::string& text :
       {std::string("#include <cuda/std/cstdint>\n#include \"sub/mine.h\"\n"),
        std::string("/* #include \"/etc/passwd\" */\n"),
        std::string("// #include \"/etc/passwd\"\n"),
        std::string("const char* s = \"#include </etc/passwd>\";\n")})
    EXPECT_EQ(refused_include(text), "") << text;
  // A quoted name that travels with the file is its given text, whatever its path says (the
  // reader checked it lies in the file's folder); not given, it would be opened.
  EXPECT_EQ(refused_include("#include \"sub/../h.h\"\n", {"sub/../h.h"}), "");
  EXPECT_NE(refused_include("#include \"sub/../h.h\"\n", {"h.h"}), "");
  EXPECT_NE(refused_include("#include <../h.h>\n", {"../h.h"}), "") << "angle brackets search";
  EXPECT_EQ(quoted_includes("/* #include \"a.h\" */\n#include \"b.h\"\n"),
            std::vector<std::string>{"b.h"});
}

// The defects: a header that is a link loop was called "outside the file's folder"; #include ""
// was said to name an outside path; a 33rd header was never read, and NVRTC said it could not open
// the first one. Each is now said for what it is.
TEST(HostileHeaders, ALoopAnEmptyNameAndTooManyHeadersAreEachSaidForWhatTheyAre) {
  const std::filesystem::path dir = scratch() / "header_kinds";
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / "loop.h");
  std::filesystem::create_symlink("loop.h", dir / "loop.h");
  std::ofstream(dir / "loop.cu") << "#include \"loop.h\"\n" + kernel_file("");
  expect_refusal(run_limited("model " + (dir / "loop.cu").string()), 2,
                 {"its header 'loop.h' cannot be read: Too many levels of symbolic links"});
  EXPECT_TRUE(test::contains(refused_include("#include \"\"\n"),
                             "#include \"\" names no header (its quotes are empty)"));
  std::string includes;
  for (int i = 0; i < 33; ++i) {
    std::ofstream(dir / ("m" + std::to_string(i) + ".h")) << "#define M" << i << " 1\n";
    includes += "#include \"m" + std::to_string(i) + ".h\"\n";
  }
  std::ofstream(dir / "many.cu") << includes + kernel_file("");
  expect_refusal(run_limited("model " + (dir / "many.cu").string()), 2,
                 {"it includes more than 32 headers", "allowed at most 32 header files"});
}

// The defect: `model k.cu:` (a colon, no kernel) modelled the first kernel as if none were named.
TEST(HostileKernelFileNames, AColonWithNoKernelAfterItIsRefused) {
  const std::filesystem::path file = scratch() / "colon.cu";
  std::ofstream(file) << kernel_file("");
  expect_refusal(run_limited("model " + file.string() + ":"), 2,
                 {"colon.cu:' names no kernel after its ':'", "colon.cu:KERNEL"});
}

// Through the binary: a header beside the file that includes an outside one through a macro is
// refused with the header named, before NVRTC opens anything.
TEST(HostileHeaders, AHeaderBesideTheFileThatIncludesOutsideIsRefused) {
  const std::filesystem::path dir = scratch() / "macro_header";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "h.h") << "#define HH \"/etc/hostname\"\n#include HH\n";
  std::ofstream(dir / "k.cu") << "#include \"h.h\"\n" + kernel_file("");
  expect_refusal(run_limited("model " + (dir / "k.cu").string()), 2,
                 {"its header 'h.h'", "#include HH is refused"});
}

// The compile runs apart, under a memory cap and a deadline: what would hold a program for as long
// as NVRTC runs (or until memory runs out) is stopped, and the refusal names the file and the
// limit.
class CompileLimitsTest : public testing::Test {
protected:
  void SetUp() override {
    use_compile_server(WARPLENS_BINARY, {.seconds = 4, .memory_bytes = std::size_t{1} << 30});
  }
  void TearDown() override { use_compile_server(""); }

  static std::string compile_error(const std::string& name, const std::string& code) {
    const std::string file = write_file(name, kernel_file(code));
    try {
      file_kernels(read_kernel_file(file)).front().usage({{"n", 4096}}, 90);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "compiled";
  }
};

TEST_F(CompileLimitsTest, AMacroThatExpandsWithoutEndIsStopped) {
  const std::string why = compile_error(
      "macro_bomb.cu", "#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(A(A(A(A(A(x))))))))\n"
                       "__device__ void f(float* p) { B(p[0] += 1;) }\n");
  EXPECT_NE(why.find("macro_bomb.cu"), std::string::npos) << why;
  // Which limit stops it first depends on the machine's speed: a fast one fills 1 GiB within 4 s.
  // Both refusals name the limit: "at most 1 GiB" when NVRTC says it is out of memory, "under a
  // 1 GiB memory cap" when the allocation failure ends the server.
  EXPECT_TRUE(why.find("ran past 4 s") != std::string::npos ||
              why.find("1 GiB") != std::string::npos)
      << why;
}

TEST_F(CompileLimitsTest, AHugeInitialisedArrayIsStopped) {
  const std::string why = compile_error(
      "array_bomb.cu", "__device__ float big[100000000] = {1};\n"
                       "__global__ void touch(float* p) { p[0] = big[threadIdx.x]; }\n");
  EXPECT_NE(why.find("array_bomb.cu"), std::string::npos) << why;
  EXPECT_TRUE(why.find("ran past 4 s") != std::string::npos ||
              why.find("1 GiB") != std::string::npos)
      << why;
  // The server that was stopped is started again for the next compile.
  EXPECT_EQ(compile_error("fine.cu", ""), "compiled");
}

} // namespace
} // namespace wl
