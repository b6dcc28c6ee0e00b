// A kernel file's description ("// @warplens" lines) and its expressions: what a person writes is
// read as they mean it, and everything else is refused in one line naming the file, the line and
// what is allowed.

#include "base/error.h"
#include "kernel_file/description.h"
#include "kernel_file/expression.h"
#include "kernel_file/file_kernel.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

std::int64_t value_of(const std::string& text, const ExpressionValues& values = {}) {
  return Expression(text).evaluate(values);
}

TEST(KernelFileExpression, ReadsCsIntegerArithmetic) {
  EXPECT_EQ(value_of("1 << 24"), 16777216);
  EXPECT_EQ(value_of("0x100"), 256);
  EXPECT_EQ(value_of("(n + block.x - 1) / block.x", {{"n", 1000}, {"block.x", 256}}), 4);
  EXPECT_EQ(value_of("ceil_div(n, 256)", {{"n", 1000}}), 4);
  EXPECT_EQ(value_of("min(a, b) * max(a, b)", {{"a", 3}, {"b", 5}}), 15);
  EXPECT_EQ(value_of("2 + 3 * 4 - 10 % 4"), 12);
  EXPECT_EQ(value_of("-7 / 2"), -3); // C truncates toward zero
  EXPECT_EQ(
      value_of("TILE % block.x == 0 && PAD <= 1", {{"TILE", 32}, {"block.x", 16}, {"PAD", 1}}), 1);
  EXPECT_EQ(value_of("1 < 2 || 1 / 0"), 1); // || decides on its left, as in C
  EXPECT_EQ(value_of("!(4 >= 5)"), 1);
  EXPECT_EQ(value_of("256 >> 4 << 1"), 32);
  const Expression e("a * b + a");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"a", "b"}));
}

struct BadExpression {
  const char* text;
  const char* says;
};

TEST(KernelFileExpression, RefusesWhatIsNotOneNamingWhereAndWhy) {
  const BadExpression parse_errors[] = {
      {"", "ends where a number"},
      {"n +", "ends where a number"},
      {"(n", "')' expected"},
      {"n)", "')' where an operator or the end was expected"},
      {"2 ** 3", "'*' where a number"},
      {"pow(2, 3)", "'pow' is not a function; allowed min, max, ceil_div"},
      {"99999999999999999999", "is not a whole number of 64 bits"},
      {"0x", "is not a whole number"},
      {"12abc", "is not a whole number"},
      {"1.5", "'.' where an operator"},
      {"min(1)", "',' expected"},
      {"n ? 1 : 2", "'?' where an operator"},
  };
  for (const BadExpression& bad : parse_errors) {
    try {
      Expression e(bad.text);
      ADD_FAILURE() << "'" << bad.text << "' was read";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(bad.says), std::string::npos)
          << bad.text << ": " << error.what();
      EXPECT_NE(std::string(error.what()).find("at column"), std::string::npos) << error.what();
    }
  }
  EXPECT_THROW(Expression(std::string(100000, '(') + "1" + std::string(100000, ')')), UsageError);
  EXPECT_THROW(Expression(std::string(2000, '1')), UsageError);
}

TEST(KernelFileExpression, AnOverflowOrADivisionByZeroIsAnErrorNotAWrappedNumber) {
  const BadExpression evaluation_errors[] = {
      {"9223372036854775807 + 1", "'+' overflows 64 bits"},
      {"1 << 63", "shifted by 0 to 62"},
      {"(1 << 62) << 1", "'<<' overflows"},
      {"3037000500 * 3037000500", "'*' overflows"},
      {"-(-9223372036854775807 - 1)", "'-' overflows"},
      {"n / 0", "'/' by zero"},
      {"n % 0", "'%' by zero"},
      {"ceil_div(n, 0)", "a divisor of at least 1"},
      {"m * 2", "'m' is not a size, a tunable or block.x/y/z"},
  };
  for (const BadExpression& bad : evaluation_errors) {
    try {
      value_of(bad.text, {{"n", 10}});
      ADD_FAILURE() << "'" << bad.text << "' gave a value";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(bad.says), std::string::npos)
          << bad.text << ": " << error.what();
    }
  }
}

const char* const kSaxpy = R"(// y = a x + y
// @warplens kernel saxpy
// @warplens size n = 1 << 24
// @warplens arg n: int = n
// @warplens arg a: float = 2.5
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg y: inout float[n] zeros
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check saxpy_reference 1e-5
// @warplens flops 2 * n
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

TEST(KernelFileDescription, ReadsEachLineAsAPersonMeansIt) {
  const KernelFileDescription d = read_kernel_file_description(kSaxpy, "saxpy.cu");
  EXPECT_EQ(d.kernels, std::vector<std::string>{"saxpy"});
  ASSERT_EQ(d.sizes.size(), 1u);
  EXPECT_EQ(d.sizes[0].name, "n");
  EXPECT_EQ(d.sizes[0].default_value, 1 << 24);
  ASSERT_EQ(d.args.size(), 4u);
  EXPECT_FALSE(d.args[0].buffer);
  EXPECT_EQ(d.args[0].whole_value->evaluate({{"n", 7}}), 7);
  EXPECT_EQ(d.args[1].real_value, 2.5);
  EXPECT_TRUE(d.args[2].buffer);
  EXPECT_EQ(d.args[2].direction, Direction::in);
  EXPECT_EQ(d.args[2].fill.kind, Fill::Kind::random);
  EXPECT_EQ(d.args[3].direction, Direction::inout);
  EXPECT_EQ(d.args[3].fill.kind, Fill::Kind::zeros);
  EXPECT_EQ(d.args[3].line, 7);
  EXPECT_EQ(d.default_block, (BlockShape{256, 1, 1}));
  ASSERT_EQ(d.grid.size(), 1u);
  EXPECT_EQ(d.grid[0].evaluate({{"n", 1000}, {"block.x", 256}}), 4);
  EXPECT_EQ(d.reference, "saxpy_reference");
  EXPECT_DOUBLE_EQ(d.tolerance, 1e-5);
  EXPECT_EQ(d.flops->evaluate({{"n", 3}}), 6);
}

// A file whose first line is its kernel line, after the byte order mark an editor wrote.
TEST(KernelFileDescription, AByteOrderMarkBeforeTheFirstLineIsSkipped) {
  const std::string from_kernel_line =
      std::string(kSaxpy).substr(std::string(kSaxpy).find('\n') + 1);
  ASSERT_TRUE(from_kernel_line.starts_with("// @warplens kernel saxpy"));
  const KernelFileDescription d =
      kernel_file_from_text("saxpy.cu", "\xEF\xBB\xBF" + from_kernel_line).description;
  EXPECT_EQ(d.kernels, std::vector<std::string>{"saxpy"});
  ASSERT_EQ(d.args.size(), 4u);
  EXPECT_EQ(d.args[3].line, 6);
}

// The defect: files joined by hand left the second one's mark before its first description line,
// which was then skipped, and the file said it had no kernel line.
TEST(KernelFileDescription, AByteOrderMarkInTheMiddleIsNamedAtItsLine) {
  const std::string saxpy(kSaxpy);
  const std::string joined = "// notes\n\xEF\xBB\xBF" + saxpy.substr(saxpy.find('\n') + 1);
  try {
    (void)kernel_file_from_text("joined.cu", joined);
    ADD_FAILURE() << "taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("joined.cu:2: a byte order mark"), std::string::npos)
        << e.what();
  }
}

TEST(KernelFileDescription, TunablesTemplatesAndRestrictions) {
  const KernelFileDescription d = read_kernel_file_description(R"(
  //   @warplens kernel transpose<TILE, PAD>
  // @warplens size rows = 4096
  // @warplens size cols = rows * 2
  // @warplens tune TILE = 32, 16
  // @warplens tune PAD = 0, 1
  // @warplens restrict block.x == TILE
  // @warplens arg in: in float[rows * cols] iota
  // @warplens arg out: out float[rows * cols]
  // @warplens block 32x8
  // @warplens grid cols / TILE, rows / TILE
  // @warplens shared TILE * (TILE + PAD) * 4
  // @warplens check none
  // @warplensish not ours
)",
                                                               "transpose.cu");
  EXPECT_EQ(d.kernels, std::vector<std::string>{"transpose<TILE, PAD>"});
  EXPECT_EQ(d.sizes[1].default_value, 8192);
  EXPECT_EQ(d.tunables[0].values, (std::vector<std::int64_t>{32, 16}));
  EXPECT_EQ(d.restrictions.size(), 1u);
  EXPECT_EQ(d.args[0].fill.kind, Fill::Kind::iota);
  EXPECT_EQ(d.args[1].fill.kind, Fill::Kind::poison);
  EXPECT_EQ(d.grid.size(), 2u);
  EXPECT_EQ(d.shared_bytes->evaluate({{"TILE", 32}, {"PAD", 1}}), 32 * 33 * 4);
  EXPECT_TRUE(d.reference.empty());
}

struct BadDescription {
  const char* name;
  std::string change; // a line added to the saxpy file, or "-WORD" to leave that word's line out
  const char* says;
};

// The saxpy file with each line of `change` added, or for "-WORD" that word's line left out.
std::string saxpy_with(const std::string& change) {
  std::string text = kSaxpy;
  std::size_t start = 0;
  while (start < change.size()) {
    const std::size_t end = std::min(change.find('\n', start), change.size());
    const std::string line = change.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with("-")) {
      text += line + "\n";
      continue;
    }
    const std::size_t at = text.find("// @warplens " + line.substr(1));
    text.erase(at, text.find('\n', at) - at + 1);
  }
  return text;
}

TEST(KernelFileDescription, AFileWithoutArgumentsSaysWhatIsMissing) {
  try {
    read_kernel_file_description("// @warplens kernel k\n// @warplens grid 1\n"
                                 "// @warplens check none\n",
                                 "empty.cu");
    FAIL() << "read";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "empty.cu: no '// @warplens arg' line: list the kernel's arguments in "
                           "order");
  }
  EXPECT_THROW(read_kernel_file_description("", "nothing.cu"), UsageError);
  EXPECT_THROW(read_kernel_file_description(std::string("\0\xff\n// @warplens \x01", 6), "bin.cu"),
               UsageError);
}

class HostileKernelFile : public ::testing::TestWithParam<BadDescription> {};

TEST_P(HostileKernelFile, RefusedInOneLineNamingTheFileAndLine) {
  try {
    read_kernel_file_description(saxpy_with(GetParam().change), "mine.cu");
    FAIL() << GetParam().change << " was read";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with("mine.cu")) << what;
    EXPECT_NE(what.find(GetParam().says), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

const BadDescription kBadDescriptions[] = {
    {"NoKernel", "-kernel", "no '// @warplens kernel NAME' line"},
    {"NoGrid", "-grid", "no '// @warplens grid' line"},
    {"NoCheck", "-check", "no '// @warplens check' line"},
    {"UnknownWord", "// @warplens kernal foo",
     "'kernal' is not a description word; did you mean 'kernel'?"},
    {"KernelNotAName", "// @warplens kernel 3d_add", "is not a function name"},
    {"KernelTwice", "// @warplens kernel saxpy", "kernel 'saxpy' is named twice"},
    {"SizeNoEquals", "// @warplens size m 10", "is not NAME = VALUE"},
    {"SizeZero", "// @warplens size m = 0", "allowed 1 to 2^40"},
    {"SizeHuge", "// @warplens size m = 1 << 50", "allowed 1 to 2^40"},
    {"SizeReadsLater", "// @warplens size m = k", "'k' is not a size"},
    {"SizeTwice", "// @warplens size n = 4", "size 'n' is named twice"},
    {"SizeBadName", "// @warplens size 2n = 4", "is not a name"},
    {"SizeComparison", "// @warplens size m == 4", "is not NAME = VALUE"},
    {"TuneRepeated", "// @warplens tune T = 8, 8", "8 is listed twice"},
    {"TuneCompilerName", "// @warplens tune __CUDACC__ = 1", "reserved for the compiler"},
    {"TuneReservedName", "// @warplens tune _Tile = 8", "reserved for the compiler"},
    {"TuneEmptyValue", "// @warplens tune T = 8,", "tune T: value 2 of 2 is empty"},
    {"TuneEmptyItem", "// @warplens tune T = 1,,2",
     "tune T: value 2 of 3 is empty; list values "
     "with a comma between, e.g. tune T = 8, 16, 32"},
    {"TuneNoValue", "// @warplens tune T =", "tune T: value 1 of 1 is empty"},
    {"TuneTooMany",
     "// @warplens tune T = " +
         [] {
           std::string v;
           for (int i = 1; i <= 65; ++i)
             v += (i > 1 ? ", " : "") + std::to_string(i);
           return v;
         }(),
     "65 values; allowed at most 64"},
    {"TuneSameAsArg", "// @warplens tune x = 1, 2", "tunable 'x' is also an argument's name"},
    {"RestrictEmpty", "// @warplens restrict", "restrict needs an expression"},
    {"RestrictUnknownName", "// @warplens restrict block.w == 1", "reads 'block.w'"},
    {"ArgNoColon", "// @warplens arg z float = 1", "is not NAME: ..."},
    {"ArgTwice", "// @warplens arg x: float = 1", "argument 'x' is named twice"},
    {"ArgUnknownType", "// @warplens arg z: in half[n]", "type 'half' is not one WarpLens fills"},
    {"ArgTypeTypo", "// @warplens arg z: itn = 4",
     "type 'itn' is not one WarpLens fills; did you mean 'int'?"},
    {"MarkerCapitalised", "// @WarpLens flops 2", "'@WarpLens' is not the description's marker"},
    {"MarkerShort", "// @warplen flops 2", "'@warplen' is not the description's marker"},
    {"TunableIsTemplateParameter",
     "// @warplens tune N = 1, 2\ntemplate <int N> __global__ void other(float* y) {}",
     "tunable 'N' is also a template parameter's name in the code"},
    {"ArgLongBuffer", "// @warplens arg z: in long[n]", "long is a scalar's type"},
    {"ArgNoCount", "// @warplens arg z: in float", "a buffer is TYPE[COUNT]"},
    {"ArgCountUnknown", "// @warplens arg z: in float[m]", "reads 'm'"},
    {"ArgCountBroken", "// @warplens arg z: in float[n +]", "ends where a number"},
    {"ArgOutFilled", "// @warplens arg z: out float[n] zeros", "an out buffer is poisoned"},
    {"ArgFillUnknown", "// @warplens arg z: in float[n] ones", "fill 'ones' is not one"},
    {"ArgRandomBackwards", "// @warplens arg z: in float[n] random(1, -1)", "low below its high"},
    {"ArgRandomOneNumber", "// @warplens arg z: in float[n] random(1)", "takes 2 numbers"},
    {"ArgRandomHuge", "// @warplens arg z: in float[n] random(-1e999, 1)", "not a finite number"},
    // Numbers the element type cannot hold: a float rounds past 3.4e38 to infinity.
    {"ArgRandomPastFloat", "// @warplens arg z: in float[n] random(-1e308, 1e308)",
     "random's low -1e+308 is outside what a float holds"},
    {"ArgRandomPastDouble", "// @warplens arg z: in double[n] random(-1e308, 1e308)",
     "spans more than a double holds"},
    {"ArgFloatPastFloat", "// @warplens arg z: float = 1e39",
     "value 1e+39 is outside what a float"},
    {"ArgConstantPastInt", "// @warplens arg z: in int[n] constant(1e10)",
     "constant 1e+10 is outside what an int holds"},
    {"ArgRandomNegativeUnsigned", "// @warplens arg z: in unsigned[n] random(-5, 5)",
     "random's low -5 is outside what a unsigned holds"},
    // A kernel checked against itself verifies nothing; two instances of one template share an id.
    {"CheckItself", "-check\n// @warplens check saxpy 1e-5", "check saxpy names the kernel itself"},
    {"TemplateTwice", "// @warplens kernel scale<2>\n// @warplens kernel scale<4>",
     "kernel 'scale<4>' and 'scale<2>' (line 16) would share the id of scale"},
    {"ArgConstantNone", "// @warplens arg z: in float[n] constant", "takes 1 number"},
    {"ArgFillUnclosed", "// @warplens arg z: in float[n] random(0, 1", "does not end with ')'"},
    {"ArgScalarNoValue", "// @warplens arg z: float", "neither a buffer"},
    {"ArgScalarNaN", "// @warplens arg z: float = nan", "not a finite number"},
    {"ArgScalarIntUnknown", "// @warplens arg z: int = q", "reads 'q'"},
    {"ArgCountReadsBlock", "// @warplens arg z: in float[n * block.x]",
     "reads block.x, but it is the same for every block shape"},
    {"ArgScalarReadsBlock", "// @warplens arg z: int = block.y", "reads block.y"},
    {"FlopsReadsBlock", "-flops\n// @warplens flops block.z * n", "reads block.z"},
    {"ArgDirectionTypo", "// @warplens arg z: input float[n]", "is neither a buffer"},
    {"BlockBad", "// @warplens block 0", "block"},
    {"BlockTwice", "// @warplens block 128", "a second 'block' line (the first is line 8)"},
    {"GridTwice", "// @warplens grid 1", "a second 'grid' line"},
    {"GridFourSides", "-grid\n// @warplens grid 1, 1, 1, 1", "grid has 4 sides"},
    {"SharedUnknown", "// @warplens shared w * 4", "reads 'w'"},
    {"SharedTwice", "// @warplens shared 4\n// @warplens shared 8", "a second 'shared' line"},
    {"CheckTwice", "// @warplens check none", "a second 'check' line"},
    {"CheckNoTolerance", "-check\n// @warplens check ref", "is not REFERENCE TOLERANCE"},
    {"CheckToleranceNegative", "-check\n// @warplens check ref -1", "allowed 0 to 1"},
    {"CheckToleranceWord", "-check\n// @warplens check ref tight", "not a finite number"},
    {"BytesBroken", "// @warplens bytes 2 *", "ends where a number"},
    {"FlopsTwice", "// @warplens flops 1", "a second 'flops' line (the first is line 11)"},
    {"BytesNested", "// @warplens bytes " + std::string(5000, '('), "longer than 1000"},
    {"DeeplyNested", "// @warplens bytes " + std::string(100, '(') + "1" + std::string(100, ')'),
     "nested deeper than 64"},
};

INSTANTIATE_TEST_SUITE_P(Lines, HostileKernelFile, ::testing::ValuesIn(kBadDescriptions),
                         [](const auto& info) { return std::string(info.param.name); });

} // namespace
} // namespace wl
