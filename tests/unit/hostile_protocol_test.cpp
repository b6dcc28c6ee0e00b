// Hostile protocol lines. Requests go to a real `warplens worker`, which must answer each with
// an error line naming the key and keep serving (exit 0 at end of input, never a signal); the
// worker's answers are read back by the client's parser, which must refuse them in one line.

#include "base/json_input.h"
#include "hostile_support.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "protocol/answer_check.h"
#include "protocol/protocol.h"

#include <algorithm>

namespace wl {
namespace {

using nlohmann::json;
using test::expect_usage_error;

using LineCase = test::InputCase;

std::string model(const std::string& extra) {
  return R"({"id":3,"type":"model","kernel":"vec_add/scalar")" + extra + "}";
}
std::string run(const std::string& extra) {
  return R"({"id":3,"type":"run","kernel":"vec_add/scalar")" + extra + "}";
}
std::string sweep(const std::string& shapes) {
  return R"({"id":3,"type":"sweep","kernel":"vec_add/scalar","shapes":)" + shapes + "}";
}
std::string many_shapes(int count) {
  std::string list = "[";
  for (int i = 0; i < count; ++i)
    list += std::string(i ? "," : "") + "[32,1,1]";
  return list + "]";
}

std::string with_file(const std::string& file) {
  return R"({"id":3,"type":"model","kernel":"mine/saxpy","kernel_file":)" + file + "}";
}

const std::vector<LineCase> kRequests = {
    {"KernelFileNotObject",
     with_file(R"("saxpy.cu")"),
     {"kernel_file: 'saxpy.cu' is not a JSON object"}},
    {"KernelFileUnknownKey",
     with_file(R"({"path":"mine.cu","text":"","mode":1})"),
     {"kernel_file.mode", "not a key of a kernel file"}},
    {"KernelFileNoPath", with_file(R"({"text":""})"), {"kernel_file.path"}},
    {"KernelFileTextNumber", with_file(R"({"path":"mine.cu","text":5})"), {"kernel_file.text"}},
    {"KernelFileTooLarge",
     with_file(R"({"path":"mine.cu","text":")" + std::string(200000, 'x') + R"("})"),
     {"kernel_file.text: 200000 bytes", "at most 128 KiB"}},
    {"KernelFileNoDescription",
     with_file(R"({"path":"mine.cu","text":"__global__ void k() {}"})"),
     {"mine.cu: no '// @warplens kernel NAME' line"}},
    {"KernelFileNul",
     with_file(R"({"path":"mine.cu","text":"a\u0000b"})"),
     {"is not text (it holds a NUL byte)"}},
    // A client sends only headers inside the file's folder; a name outside it is refused, not
    // compiled from the text that came with it.
    {"KernelFileHeaderAbove",
     with_file(R"({"path":"mine.cu","text":"","headers":{"../x.h":"#define X 1"}})"),
     {"kernel_file.headers: a header named '../x.h'", "inside it"}},
    {"KernelFileHeaderAbsolute",
     with_file(R"({"path":"mine.cu","text":"","headers":{"/etc/passwd":"#define X 1"}})"),
     {"a header named '/etc/passwd'"}},
    {"KernelFileHeaderEmptyName",
     with_file(R"({"path":"mine.cu","text":"","headers":{"":"x"}})"),
     {"a header named ''"}},
    {"KernelFileCompileError",
     with_file(
         R"({"path":"mine.cu","text":"// @warplens kernel saxpy\n// @warplens arg n: int = 1\n)"
         R"(// @warplens grid 1\n// @warplens check none\n__global__ void saxpy(int n) { oops; }"})"),
     {"mine.cu:5: error: identifier \"oops\" is undefined"}},
    // The path names the file; one that ends in a folder's '/' names none (NVRTC was given it).
    {"KernelFilePathAFolder",
     with_file(R"({"path":"/tmp/","text":"// @warplens kernel saxpy\n"})"),
     {"kernel file '/tmp/' names no file"}},
    {"KernelFilePathDot",
     with_file(R"({"path":"sub/..","text":"// @warplens kernel saxpy\n"})"),
     {"kernel file 'sub/..' names no file"}},
    {"BlockFraction",
     model(R"(,"block":[256.7])"),
     {"request 3: block[0]: 256.7 is not a whole number"}},
    {"ParamFraction", model(R"(,"params":{"n":1000.9})"), {"request 3: params.n: 1000.9"}},
    {"IdHugeFloat",
     R"({"id":1e300,"type":"model","kernel":"vec_add/scalar"})",
     {"request: id: 1e+300"}},
    {"IdNegative",
     R"({"id":-5,"type":"model","kernel":"vec_add/scalar"})",
     {"request: id: -5 is out of range"}},
    {"IdText", R"({"id":"7","type":"model","kernel":"vec_add/scalar"})", {"request: id: '7'"}},
    {"IdUint64",
     R"({"id":18446744073709551615,"type":"shutdown"})",
     {"id: 18446744073709551615 is out of range"}},
    // Whole, but beyond 64 bits (the parser holds it as a double): too large, not "not whole".
    {"IdTwoPow64",
     R"({"id":18446744073709551616,"type":"shutdown"})",
     {"request: id: 1.84467440737096e+19 is out of range", "at least 1"}},
    {"IdMissing", R"({"type":"shutdown"})", {"request: id: missing"}},
    {"EvaluationsInt64Max",
     R"({"id":3,"type":"model","kernel":"matmul/naive","max_evaluations":9223372036854775807})",
     {"max_evaluations: 9223372036854775807 is out of range", "40000000"}},
    {"EvaluationsTwoPow63",
     R"({"id":3,"type":"model","kernel":"matmul/naive","max_evaluations":9223372036854775808})",
     {"max_evaluations: 9223372036854775808"}},
    {"EvaluationsNegative", model(R"(,"max_evaluations":-1)"), {"max_evaluations: -1"}},
    {"EvaluationsExponent",
     model(R"(,"max_evaluations":1e12)"),
     {"max_evaluations: 1000000000000 is out of range", "0 to 40000000"}},
    {"EvaluationsFraction", model(R"(,"max_evaluations":1.5)"), {"max_evaluations: 1.5"}},
    {"BlockNested60000",
     model(R"(,"block":)" + test::nested(60000)),
     {"request line: lists and objects nested too deep"}},
    {"NotJson", "not json at all", {"request line: not valid JSON"}},
    {"TopLevelList", "[1,2]", {"request: a list of 2 items is not a JSON object"}},
    {"TopLevelString", R"("model")", {"request: 'model' is not a JSON object"}},
    {"TypeUnknown", R"({"id":3,"type":"dance"})", {"request 3: type: 'dance' is not known"}},
    {"TypeNumber", R"({"id":3,"type":5})", {"request 3: type: 5"}},
    {"TypeMissing", R"({"id":3})", {"request 3: type: missing"}},
    {"KernelMissing", R"({"id":3,"type":"model"})", {"request 3: kernel: missing"}},
    {"KernelEmpty", R"({"id":3,"type":"model","kernel":""})", {"request 3: kernel: ''"}},
    {"KernelNumber", R"({"id":3,"type":"model","kernel":5})", {"request 3: kernel: 5"}},
    {"BlockEmpty", model(R"(,"block":[])"), {"request 3: block: a list of 0 items"}},
    {"BlockFourSides", model(R"(,"block":[1,2,3,4])"), {"request 3: block: a list of 4 items"}},
    {"BlockZero", model(R"(,"block":[0])"), {"request 3: block[0]: 0"}},
    {"BlockOverInt", model(R"(,"block":[2147483648])"), {"request 3: block[0]: 2147483648"}},
    {"BlockText", model(R"(,"block":"256")"), {"request 3: block: '256' is not a list"}},
    {"ParamsList",
     model(R"(,"params":[1])"),
     {"request 3: params: a list of 1 items is not a JSON object"}},
    {"ParamText", model(R"(,"params":{"n":"big"})"), {"request 3: params.n: 'big'"}},
    {"ParamHugeFloat", model(R"(,"params":{"n":1e300})"), {"request 3: params.n: 1e+300"}},
    {"ParamOutOfKernelRange", model(R"(,"params":{"n":0})"), {"n=0"}},
    {"ArchNumber", model(R"(,"arch":5)"), {"request 3: arch: 5"}},
    {"ArchFolder", model(R"(,"arch":"/tmp/")"), {"/tmp/", "folder"}},
    {"ArchDeviceHuge", model(R"(,"arch":"device:99999999999")"), {"device:99999999999"}},
    {"DeviceNegative", run(R"(,"device":-1)"), {"request 3: device: -1"}},
    {"SeedNegative", run(R"(,"seed":-1)"), {"request 3: seed: -1"}},
    {"VerifyText", run(R"(,"verify":"yes")"), {"request 3: verify: 'yes' is not true or false"}},
    {"MaxSecondsZero", run(R"(,"max_seconds":0)"), {"request 3: max_seconds: 0"}},
    {"MaxSecondsHuge", run(R"(,"max_seconds":1e300)"), {"request 3: max_seconds: 1e+300"}},
    {"MaxSecondsText",
     run(R"(,"max_seconds":"1")"),
     {"request 3: max_seconds: '1' is not a number"}},
    {"KernelTimeLimitZero", run(R"(,"kernel_time_limit":0)"), {"request 3: kernel_time_limit: 0"}},
    {"KernelTimeLimitHuge",
     run(R"(,"kernel_time_limit":1e300)"),
     {"request 3: kernel_time_limit: 1e+300"}},
    {"KernelTimeLimitText",
     run(R"(,"kernel_time_limit":"10")"),
     {"request 3: kernel_time_limit: '10' is not a number"}},
    {"KernelTimeLimitInAModel",
     model(R"(,"kernel_time_limit":10)"),
     {"request 3", "kernel_time_limit"}},
    {"MetricsNumber", run(R"(,"metrics":5)"), {"request 3: metrics: 5"}},
    {"PerSiteText",
     run(R"(,"per_site":"yes")"),
     {"request 3: per_site: 'yes' is not true or false"}},
    {"ShapesMissing",
     R"({"id":3,"type":"sweep","kernel":"vec_add/scalar"})",
     {"request 3: shapes: missing"}},
    {"ShapesEmpty", sweep("[]"), {"request 3: shapes: an empty list"}},
    {"ShapeZero", sweep("[[0,0,0]]"), {"request 3: shapes[0]: 0 is out of range"}},
    {"ShapeTwoSides", sweep("[[8,1]]"), {"request 3: shapes[0]: a list of 2 items is not a shape"}},
    {"ShapesTooMany",
     sweep(many_shapes(5000)),
     {"request 3: shapes: a list of 5000 items", "4096"}},
    {"CancelTargetNegative", R"({"id":3,"type":"cancel","target":-1})", {"request 3: target: -1"}},
    {"CancelTargetText",
     R"({"id":3,"type":"cancel","target":"all"})",
     {"request 3: target: 'all'"}},
    // A cancel names an earlier request (or 0, every request waiting or running): one that names
    // itself or a later id cancels nothing and was answered by nothing.
    {"CancelItself",
     R"({"id":3,"type":"cancel","target":3})",
     {"request 3: target: 3 is this cancel request's own id",
      "allowed the id of an earlier request, or 0 for every request waiting or running"}},
    {"CancelALaterRequest",
     R"({"id":3,"type":"cancel","target":9})",
     {"request 3: target: 9 is not an earlier request's id", "allowed the id of an earlier"}},
    {"LineOver1MiB",
     model(R"(,"arch":")" + std::string(2 << 20, 'a') + "\""),
     {"request line: longer than 1048576"}},
    {"BadUtf8", "{\"id\":3,\"type\":\"\xff\"}", {"request line: not valid JSON"}},
    {"IdZero",
     R"({"id":0,"type":"model","kernel":"vec_add/scalar"})",
     {"request: id: 0 is out of range", "at least 1"}},
    {"KeyMisspelt",
     model(R"(,"blok":[64])"),
     {"request 3: blok: not a key of a model request", "block"}},
    {"KeyOfARun", model(R"(,"seed":7)"), {"request 3: seed: not a key of a model request"}},
    {"SweepBlock",
     sweep(R"([[64,1,1]],"block":[64])"),
     {"request 3: block: not a key of a sweep request", "shapes"}},
    {"AxisKeyMisspelt",
     sweep(R"([[64,1,1]],"param_axes":[{"name":"n","values":[4096],"valeus":[1]}])"),
     {"request 3: param_axes[0].valeus: not a key of a swept parameter", "name, values"}},
    {"CancelKeyMisspelt",
     R"({"id":3,"type":"cancel","traget":1})",
     {"request 3: traget: not a key of a cancel request", "target"}},
    {"KeyTwice",
     model(R"(,"block":[64],"block":[128])"),
     {"request line: the key 'block' is given twice in one object"}},
    {"ParamTwice",
     model(R"(,"params":{"n":4096,"n":8192})"),
     {"request line: the key 'n' is given twice in one object"}},
};

// Every answer line the worker wrote, parsed.
std::vector<json> answers(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    lines.push_back(json::parse(line));
  return lines;
}

class HostileRequest : public testing::TestWithParam<LineCase> {};

TEST_P(HostileRequest, TheWorkerAnswersAnErrorAndGoesOn) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::string input = test::write_file("request_" + GetParam().name, GetParam().input + "\n");
  const test::Outcome o = test::run_limited("worker", "", input);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_LT(o.seconds, test::kHangGuardSeconds);
  const std::vector<json> lines = answers(o.out);
  const auto error =
      std::find_if(lines.begin(), lines.end(), [](const json& l) { return l["type"] == "error"; });
  ASSERT_NE(error, lines.end()) << o.out.substr(0, 500);
  EXPECT_FALSE((*error)["fatal"].get<bool>());
  test::expect_good_message((*error)["message"].get<std::string>(), GetParam().fragments);
}

INSTANTIATE_TEST_SUITE_P(Lines, HostileRequest, testing::ValuesIn(kRequests),
                         test::case_name<LineCase>);

TEST(HostileRequestSession, BadLinesDoNotStopTheNextGoodOne) {
  WL_SKIP_WITHOUT_ENGINE();
  std::string text;
  for (const LineCase& c : kRequests)
    text += c.input + "\n";
  text += R"({"id":99,"type":"model","kernel":"vec_add/scalar"})"
          "\n";
  const test::Outcome o = test::run_limited("worker", "", test::write_file("session", text));
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const std::vector<json> lines = answers(o.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back()["type"], "result") << lines.back().dump().substr(0, 300);
  EXPECT_EQ(lines.back()["id"], 99);
}

// The worker's answers to a session of lines, in order.
std::vector<json> session(const std::string& name, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += line + "\n";
  const test::Outcome o = test::run_limited("worker", "", test::write_file(name, text));
  EXPECT_EQ(o.exit_code, 0) << o.err;
  return answers(o.out);
}

bool has_answer(const std::vector<json>& lines, const char* type, std::int64_t id) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const json& l) { return l["type"] == type && l["id"] == id; });
}

std::string error_of(const std::vector<json>& lines, std::int64_t id) {
  for (const json& l : lines)
    if (l["type"] == "error" && l["id"] == id)
      return l["message"];
  return "";
}

TEST(HostileRequestSession, AnIdUsedBeforeIsRefusedAndTheFirstRequestAnswered) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::vector<json> lines =
      session("ids_twice", {R"({"id":5,"type":"model","kernel":"vec_add/scalar"})",
                            R"({"id":5,"type":"model","kernel":"matmul/naive"})",
                            R"({"id":4,"type":"model","kernel":"matmul/naive"})"});
  ASSERT_TRUE(has_answer(lines, "result", 5));
  for (const json& l : lines)
    if (l["type"] == "result") {
      EXPECT_EQ(l["result"]["kernel"], "vec_add/scalar") << "the repeated id was served";
    }
  test::expect_good_message(
      error_of(lines, 5), {"request 5: id: 5 is not above the last request's 5", "each used once"});
  test::expect_good_message(error_of(lines, 4),
                            {"request 4: id: 4 is not above the last request's 5"});
}

// A whole number written with an exponent or a fraction of zero is the number it names.
TEST(HostileRequestSession, AWholeNumberWithAnExponentIsServedAsThatNumber) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::vector<json> lines = session(
      "exponents", {R"({"id":1e1,"type":"model","kernel":"vec_add/scalar","block":[6.4e1,1.0]})"});
  ASSERT_TRUE(has_answer(lines, "result", 10)) << (lines.empty() ? "" : lines.back().dump());
  for (const json& l : lines)
    if (l["type"] == "result") {
      EXPECT_EQ(l["result"]["block"], json::array({64, 1, 1}));
    }
}

// The parser took a NUL byte for the end of the line: the request before it was served and the
// rest dropped unseen.
TEST(HostileRequestSession, ANulByteIsRefusedNamingItsColumnAndTheNextLineServed) {
  WL_SKIP_WITHOUT_ENGINE();
  using namespace std::string_literals;
  const std::vector<json> lines =
      session("nul", {R"({"id":1,"type":"model","kernel":"vec_add/scalar"})"
                      "\0"s
                      R"({"id":2})",
                      R"({"id":3,"type":"model","kernel":"vec_add/scalar"})"});
  EXPECT_FALSE(has_answer(lines, "result", 1)) << "the part before the NUL byte was served";
  test::expect_good_message(
      error_of(lines, 0),
      {"request line: not valid JSON (a NUL byte at column 50, after the document)"});
  EXPECT_TRUE(has_answer(lines, "result", 3));
}

// Answers that cannot be written, an input that cannot be read: the worker stops with exit 2 and
// the system's reason in one line, never exit 0 with every answer lost.
TEST(HostileWorkerStreams, AnAnswerThatCannotBeWrittenEndsTheWorkerWithTheReason) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::string input =
      test::write_file("one_request", R"({"id":1,"type":"model","kernel":"vec_add/scalar"})"
                                      "\n");
  for (const auto& [output, reason] : std::vector<std::pair<std::string, std::string>>{
           {">/dev/full", "No space left on device"}, {">&-", "Bad file descriptor"}})
    test::expect_refusal(test::run_limited("worker", "", input, output), 2,
                         {"worker: cannot write its answers to standard output: " + reason});
}

TEST(HostileWorkerStreams, AnInputThatCannotBeReadEndsTheWorkerWithTheReason) {
  WL_SKIP_WITHOUT_ENGINE();
  test::expect_refusal(test::run_limited("worker", "", test::scratch().string()), 2,
                       {"worker: cannot read requests from standard input: Is a directory"});
}

TEST(HostileRequestSession, NothingIsServedAfterShutdown) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::vector<json> lines =
      session("after_shutdown", {R"({"id":1,"type":"shutdown"})",
                                 R"({"id":2,"type":"model","kernel":"vec_add/scalar"})"});
  EXPECT_FALSE(has_answer(lines, "result", 2)) << "a request after shutdown was served";
  test::expect_good_message(
      error_of(lines, 2), {"request 2: it came after shutdown (request 1)", "serves nothing more"});
}

// The worker read its input a byte at a time (about 4 MB/s): 48 MiB of blank lines took 13 s.
TEST(HostileRequestSession, TheWorkerReadsItsInputInBlocks) {
  WL_SKIP_WITHOUT_ENGINE();
  std::string text;
  const std::string blank = std::string(1023, ' ') + "\n";
  for (int i = 0; i < 48 * 1024; ++i)
    text += blank;
  text += R"({"id":9,"type":"model","kernel":"vec_add/scalar"})"
          "\n";
  const test::Outcome o = test::run_limited("worker", "", test::write_file("blank_lines", text));
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(has_answer(answers(o.out), "result", 9)) << o.out.substr(0, 300);
  EXPECT_LT(o.seconds, test::kHangGuardSeconds);
}

// Lines handed out in pieces of 3 bytes: each line whole, however the blocks fall.
TEST(HostileRequestLines, LinesAreWholeAcrossBlocksAndALongOneIsSkipped) {
  const std::string input = "{\"a\":1}\n" + std::string(50, 'x') + "\nshort\nlast";
  std::size_t at = 0;
  LineReader lines(
      [&](char* into, std::size_t size) {
        const std::size_t n = std::min({size, input.size() - at, std::size_t{3}});
        input.copy(into, n, at);
        at += n;
        return n;
      },
      20);
  std::string line;
  EXPECT_EQ(lines.next(line), LineStatus::line);
  EXPECT_EQ(line, "{\"a\":1}");
  EXPECT_EQ(lines.next(line), LineStatus::too_long);
  EXPECT_TRUE(line.empty()) << "a long line is never stored";
  EXPECT_EQ(lines.next(line, false), LineStatus::end) << "no whole line read in yet";
  EXPECT_EQ(lines.next(line), LineStatus::line);
  EXPECT_EQ(line, "short");
  EXPECT_EQ(lines.next(line), LineStatus::line);
  EXPECT_EQ(line, "last");
  EXPECT_EQ(lines.next(line), LineStatus::end);
}

// The input of a reader: `length` bytes of one line (no end when `length` is 0: a stream of
// zeros), then "\nnext\n"; `served` counts the bytes handed out.
LineReader::ReadSome long_line(std::size_t length, std::size_t& served) {
  return [length, &served, rest_sent = false](char* into, std::size_t size) mutable {
    if (length && served >= length) {
      if (rest_sent)
        return std::size_t{0};
      rest_sent = true;
      const std::string rest = "\nnext\n";
      rest.copy(into, rest.size());
      return rest.size();
    }
    const std::size_t n = length ? std::min(size, length - served) : size;
    std::fill(into, into + n, 'x');
    served += n;
    return n;
  };
}

// The defect: a line without end (`warplens worker < /dev/zero`) was said to be too long only at
// its end, so the worker read on and never answered. It is said once it passes the most a line
// may hold; its rest is skipped and the next line read, and a line that goes on past 64 times the
// most ends the input, so the worker's reader finishes.
TEST(HostileRequestSession, ALineWithoutEndIsSaidTooLongOnceItPassesTheMost) {
  std::size_t served = 0;
  LineReader lines(long_line(200 * 1024, served), 4096);
  std::string line;
  EXPECT_EQ(lines.next(line), LineStatus::too_long);
  EXPECT_LT(served, std::size_t{200 * 1024}) << "said only at the line's end";
  EXPECT_EQ(lines.next(line), LineStatus::line);
  EXPECT_EQ(line, "next");

  std::size_t endless = 0;
  LineReader zeros(long_line(0, endless), 4096);
  EXPECT_EQ(zeros.next(line), LineStatus::too_long);
  EXPECT_EQ(zeros.next(line), LineStatus::end);
  EXPECT_LT(endless, std::size_t{1} << 20) << "read on past 64 times the most a line holds";
}

TEST(HostileRequestBounds, AllEvaluationsMeansTheDocumentedMaximum) {
  const WorkerRequest q = request_from_json(json::parse(model(R"(,"max_evaluations":0)")));
  EXPECT_EQ(q.engine.model.max_evaluations, kMaxModelEvaluations);
}

std::string result_line(const test::Change& change) {
  return R"({"id":4,"type":"result","result":)" + test::changed(test::recorded_run(), change) + "}";
}

const std::vector<LineCase> kAnswers = {
    {"HelloProtocolText",
     R"({"id":0,"type":"hello","protocol":"1"})",
     {"worker line 0: protocol: '1'"}},
    {"HelloProtocolNegative", R"({"id":0,"type":"hello","protocol":-1})", {"protocol: -1"}},
    {"HelloPidFraction", R"({"id":0,"type":"hello","protocol":1,"pid":1.5})", {"pid: 1.5"}},
    {"ProgressDoneNegative",
     R"({"id":4,"type":"progress","done":-1})",
     {"worker line 4: done: -1"}},
    {"ProgressTotalHuge", R"({"id":4,"type":"progress","total":1e300})", {"total: 1e+300"}},
    {"ProgressPhaseNumber", R"({"id":4,"type":"progress","phase":5})", {"phase: 5"}},
    {"ErrorMessageMissing", R"({"id":4,"type":"error"})", {"worker line 4: message: missing"}},
    {"ErrorFatalText", R"({"id":4,"type":"error","message":"x","fatal":"yes"})", {"fatal: 'yes'"}},
    {"ErrorNoGpuNumber", R"({"id":4,"type":"error","message":"x","no_gpu":1})", {"no_gpu: 1"}},
    {"ResultMissing", R"({"id":4,"type":"result"})", {"worker line 4: result: missing"}},
    {"ResultNumber",
     R"({"id":4,"type":"result","result":5})",
     {"worker line 4: result: 5 is not a JSON object"}},
    {"ResultMedianNegative",
     "",
     {"result: timing.median_ms: -1"},
     [] {
       return result_line({"/timing/median_ms", -1});
     }},
    {"ResultWarpSizeZero",
     "",
     {"result: arch_details.warp_size: 0"},
     [] {
       return result_line({"/arch_details/warp_size", 0});
     }},
    {"ResultBlockZero",
     "",
     {"result: block[0]: 0"},
     [] {
       return result_line({"/block/0", 0});
     }},
    {"ResultSitesHuge",
     "",
     {"result: sites[0].requests: 1e+300"},
     [] {
       return result_line({"/sites/0/requests", 1e300});
     }},
    {"SweepPointsMissing", R"({"id":4,"type":"sweep"})", {"worker line 4: points: missing"}},
    {"SweepPointsEmpty",
     R"({"id":4,"type":"sweep","points":[]})",
     {"points: a list of 0 items is not a sweep"}},
    {"SweepRefusedBlockZero",
     R"({"id":4,"type":"sweep","points":[{"block":[0,0,0],"refused":"x"}]})",
     {"points: [0]: block[0]: 0"}},
    {"SweepMedianZero",
     "",
     {"points: [0]: timing.median_ms: 0"},
     [] {
       return R"({"id":4,"type":"sweep","points":[)" +
              test::changed(test::recorded_run(), {"/timing/median_ms", 0}) + "]}";
     }},
    {"TypeUnknown", R"({"id":4,"type":"resultx"})", {"worker line 4: type: 'resultx'"}},
    {"IdNegative", R"({"id":-1,"type":"hello","protocol":1})", {"worker line: id: -1"}},
    {"IdFraction", R"({"id":1.5,"type":"hello","protocol":1})", {"worker line: id: 1.5"}},
    {"IdText", R"({"id":"1","type":"hello","protocol":1})", {"worker line: id: '1'"}},
    {"Nested70000", test::nested(70000), {"worker line: lists and objects nested too deep"}},
    {"Overflow",
     R"({"id":4,"type":"progress","done":1e999})",
     {"worker line: the number 1e999 at line 1, column 34"}},
    {"TopLevelList", "[]", {"worker line: a list of 0 items is not a JSON object"}},
    {"CancelledText",
     R"({"id":4,"type":"error","message":"x","cancelled":"no"})",
     {"cancelled: 'no'"}},
    {"ProgressDoneOverTotal",
     R"({"id":4,"type":"progress","phase":"sweep","done":9,"total":3})",
     {"worker line 4: done: 9 is out of range", "0 to 3"}},
    {"KeyTwice",
     R"({"id":4,"type":"error","message":"x","message":"y"})",
     {"worker line: the key 'message' is given twice"}},
    {"ResultBlocksPerSm9999",
     "",
     {"result: occupancy.blocks_per_sm: 9999"},
     [] {
       return result_line({"/occupancy/blocks_per_sm", 9999});
     }},
    // No GPU of compute capability 8.0 runs a binary built for sm_90.
    {"ResultBinaryForALaterGpu",
     "",
     {"result: attributes.binary_version: 90 (sm_90) on a GPU of compute capability 8.0"},
     [] {
       return result_line({"/arch_details/compute_capability", "8.0"});
     }},
    {"ResultCounterNegative",
     "",
     {"result: counters.values[3].value: -1e+18"},
     [] {
       return result_line({"/counters/values/3/value", -1e18});
     }},
    {"ResultPassedWithMismatches",
     "",
     {"result: verification.passed: true with 1000 mismatches"},
     [] {
       return result_line({"/verification/mismatches", 1000});
     }},
};

class HostileAnswer : public testing::TestWithParam<LineCase> {};

TEST_P(HostileAnswer, TheClientRefusesItInOneLine) {
  const std::string line = GetParam().text();
  expect_usage_error(
      [&] { response_from_json(parse_json_text(line, "worker line", kMaxAnswerLineBytes)); },
      GetParam().fragments);
}

INSTANTIATE_TEST_SUITE_P(Lines, HostileAnswer, testing::ValuesIn(kAnswers),
                         test::case_name<LineCase>);

// Answers that read whole but do not answer the request they were sent for, or could not have
// been measured within its budget (check_answer): each refused naming what was asked.

// A run of vec_add/scalar at its default launch on device 0, as the recorded H100 run answers.
WorkerRequest recorded_request() {
  WorkerRequest r;
  r.id = 4;
  r.type = RequestType::run;
  r.kernel_id = "vec_add/scalar";
  r.engine.metrics = "default";
  r.engine.timing.max_seconds = 0.5;
  return r;
}

WorkerResponse result_answer(RunResult result) {
  return WorkerResponse{.id = 4,
                        .type = ResponseType::result,
                        .result = std::make_shared<RunResult>(std::move(result))};
}

RunResult recorded_result() { return run_result_from_json(test::recorded_run()); }

void expect_refused(const WorkerRequest& asked, const WorkerResponse& answer,
                    const std::vector<std::string>& fragments, double budget = 60.5) {
  expect_usage_error([&] { check_answer(asked, budget, answer); }, fragments);
}

TEST(HostileAnswerToRequest, TheRecordedRunAnswersItsOwnRequest) {
  EXPECT_NO_THROW(check_answer(recorded_request(), 60.5, result_answer(recorded_result())));
}

TEST(HostileAnswerToRequest, AnotherLaunchOrGpuIsRefusedNamingWhatWasAsked) {
  WorkerRequest asked = recorded_request();
  asked.block = BlockShape{64, 1, 1};
  expect_refused(asked, result_answer(recorded_result()), {"block 256x1x1 where 64x1x1 was asked"});
  asked = recorded_request();
  asked.kernel_id = "vec_add/vec4";
  expect_refused(asked, result_answer(recorded_result()),
                 {"kernel vec_add/scalar where vec_add/vec4 was asked"});
  asked = recorded_request();
  asked.params = {{"n", 4096}};
  expect_refused(asked, result_answer(recorded_result()),
                 {"parameters n=16777216 where n=4096 were asked"});
  asked = recorded_request();
  asked.engine.device = 1;
  expect_refused(asked, result_answer(recorded_result()),
                 {"arch device:0 where device:1 was asked"});
}

// Stall samples come only where asked, and as a pass can make them: a lying worker's counts that
// go backwards or name a reason no chip has are refused naming the key.
TEST(HostileAnswerToRequest, StallSamplesComeOnlyWhereAskedAndAsAPassMakesThem) {
  RunResult sampled = recorded_result();
  sampled.stalls = StallSamples{};
  sampled.stalls->reason = "PC sampling is not allowed here";
  expect_refused(recorded_request(), result_answer(sampled),
                 {"stall samples where none were asked"});
  WorkerRequest asked = recorded_request();
  asked.engine.stalls = true;
  expect_refused(asked, result_answer(recorded_result()),
                 {"no stall samples where they were asked"});
  EXPECT_NO_THROW(check_answer(asked, 60.5, result_answer(sampled)));
  nlohmann::json lying = run_result_to_json(sampled);
  lying["stalls"]["available"] = true;
  lying["stalls"]["period"] = 6;
  lying["stalls"]["instructions"] = nlohmann::json::array(
      {{{"pc", 16},
        {"sass", ""},
        {"file", "vec_add.cu"},
        {"line", 26},
        {"reasons", {{{"reason", "coffee_break"}, {"samples", 5}, {"not_issued", 0}}}}}});
  expect_usage_error([&] { run_result_from_json(lying, "worker answer"); },
                     {"stalls.instructions[0].reasons[0].reason", "coffee_break"});
  lying["stalls"]["instructions"][0]["reasons"][0] = {
      {"reason", "long_scoreboard"}, {"samples", -3}, {"not_issued", 0}};
  expect_usage_error([&] { run_result_from_json(lying, "worker answer"); },
                     {"stalls.instructions[0].reasons[0].samples", "-3"});
}

// Energy comes only where asked, never in a timed part, and no longer than the budget.
TEST(HostileAnswerToRequest, EnergyComesOnlyWhereAskedAndWithinTheBudget) {
  RunResult measured = recorded_result();
  measured.energy = EnergyStats{};
  measured.energy->reason = "NVML is not installed";
  expect_refused(recorded_request(), result_answer(measured), {"energy where none was asked"});
  WorkerRequest asked = recorded_request();
  asked.engine.energy = true;
  expect_refused(asked, result_answer(recorded_result()), {"no energy where it was asked"});
  EXPECT_NO_THROW(check_answer(asked, 60.5, result_answer(measured)));
  measured.energy->seconds = 500;
  expect_refused(asked, result_answer(measured), {"an energy batch of 500 s"});
}

TEST(HostileAnswerToRequest, APartAskedForMustBeThereAndFitTheBudget) {
  RunResult no_verification = recorded_result();
  no_verification.verification.reset();
  expect_refused(recorded_request(), result_answer(no_verification),
                 {"no verification where one was asked"});
  RunResult no_counters = recorded_result();
  no_counters.counters.reset();
  expect_refused(recorded_request(), result_answer(no_counters),
                 {"no counters where 'default' were asked"});
  RunResult no_timing = recorded_result();
  no_timing.timing.reset();
  expect_refused(recorded_request(), result_answer(no_timing), {"no timing where a measurement"});
  // The recorded run timed for 0.2 s: not within a budget of 0.1 s.
  expect_refused(recorded_request(), result_answer(recorded_result()),
                 {"a timing of 1710 samples", "longer than the request's 0.1 s budget"}, 0.1);
}

TEST(HostileAnswerToRequest, AModelMeasuresNothingAndIsOfTheArchAsked) {
  WorkerRequest asked = recorded_request();
  asked.type = RequestType::model;
  asked.arch = "h100";
  const KernelRequest launch = request_kernel(asked);
  const RunResult modelled = model_kernel(launch, test::preset("h100"), ModelBudget{1000});
  EXPECT_NO_THROW(check_answer(asked, 60, result_answer(modelled)));
  RunResult measured = modelled;
  measured.timing = recorded_result().timing;
  expect_refused(asked, result_answer(measured), {"measured figures where a model was asked"});
  asked.arch = "rtx4090";
  expect_refused(asked, result_answer(modelled), {"arch h100 where rtx4090 was asked"});
  asked.arch = "sm_89"; // an alias of rtx4090's
  expect_refused(asked, result_answer(modelled), {"arch h100 where rtx4090 was asked"});
}

WorkerRequest sweep_request(std::vector<BlockShape> shapes) {
  WorkerRequest r = recorded_request();
  r.type = RequestType::sweep;
  r.shapes = std::move(shapes);
  return r;
}

WorkerResponse points_answer(const std::vector<SweepPoint>& points) {
  return WorkerResponse{.id = 4,
                        .type = ResponseType::sweep,
                        .sweep = std::make_shared<std::vector<SweepPoint>>(points)};
}

SweepPoint refused_point(int x, std::int64_t n = 16777216) {
  return SweepPoint{BlockShape{x, 1, 1}, "refused here", std::nullopt, {{"n", n}}};
}

TEST(HostileAnswerToRequest, ASweepAnswersEachPointAskedInOrder) {
  const WorkerRequest asked = sweep_request({{64, 1, 1}, {128, 1, 1}, {256, 1, 1}});
  EXPECT_NO_THROW(check_answer(
      asked, 60, points_answer({refused_point(64), refused_point(128), refused_point(256)})));
  std::vector<SweepPoint> six;
  for (int i = 0; i < 6; ++i)
    six.push_back(refused_point(64 << (i % 3)));
  expect_refused(asked, points_answer(six), {"6 points where 3 were asked (3 shapes)"});
  expect_refused(asked, points_answer({refused_point(128), refused_point(64), refused_point(256)}),
                 {"point 1 (n=16777216 block 64x1x1): block 128x1x1 where 64x1x1 was asked"});
  expect_refused(asked,
                 points_answer({refused_point(64), refused_point(128, 4096), refused_point(256)}),
                 {"point 2", "parameters n=4096 where n=16777216 were asked"});
  expect_refused(asked, result_answer(recorded_result()), {"a result where a sweep was asked"});
  expect_refused(recorded_request(), points_answer({refused_point(256)}),
                 {"a sweep where a run was asked"});
}

TEST(HostileAnswerSize, ALineOverTheCapIsRefusedBeforeParsing) {
  const std::string line(kMaxAnswerLineBytes + 1, ' ');
  expect_usage_error([&] { parse_json_text(line, "worker line", kMaxAnswerLineBytes); },
                     {"worker line", "at most"});
}

} // namespace
} // namespace wl
