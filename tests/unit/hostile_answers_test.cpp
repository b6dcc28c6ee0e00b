// A worker may be remote and wrong: what it says of the model is never shown. Its predictions (a
// million times the sectors, a site the kernel does not have, a site dropped) are replaced by this
// side's own, through the real client and a worker that lies; a kernel file's answer is held to
// the file (its lines, its `check none`).

#include "hostile_support.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "protocol/answer_check.h"
#include "protocol/run_result_json.h"
#include "protocol/worker_client.h"
#include "registry.h"

#include <chrono>

namespace wl {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

RunResult modelled(const std::string& kernel) {
  const KernelRequest request = resolve_kernel_request(kernel, {}, "", "");
  return model_kernel(request, test::preset("h100"), ModelBudget{});
}

WorkerRequest model_of(const std::string& kernel) {
  WorkerRequest r;
  r.type = RequestType::model;
  r.kernel_id = kernel;
  r.arch = "h100";
  return r;
}

// The client's own prediction replaces the worker's, whatever the worker said of it.
TEST(HostileAnswers, AWorkersPredictionsAreReplacedByThisSidesModel) {
  const RunResult honest = modelled("vec_add/scalar");
  RunResult lying = honest;
  for (SitePrediction& site : lying.prediction.sites)
    site.sectors *= 1'000'000;
  lying.prediction.sites.push_back(lying.prediction.sites.front()); // a ghost site
  lying.prediction.sites.front().name = "load nothing";
  WorkerResponse answer;
  answer.type = ResponseType::result;
  answer.result = std::make_shared<const RunResult>(lying);
  const WorkerResponse shown = with_own_model(model_of("vec_add/scalar"), answer);
  ASSERT_EQ(shown.result->prediction.sites.size(), honest.prediction.sites.size());
  for (std::size_t i = 0; i < honest.prediction.sites.size(); ++i) {
    EXPECT_EQ(shown.result->prediction.sites[i].name, honest.prediction.sites[i].name);
    EXPECT_EQ(shown.result->prediction.sites[i].sectors, honest.prediction.sites[i].sectors);
  }
}

// Through the real client: a worker (a shell script) that says hello and answers every request
// with a result whose sectors are a million times the model's.
TEST(HostileAnswers, TheClientShowsItsOwnModelOfALyingWorkersAnswer) {
  RunResult lying = modelled("transpose/naive");
  for (SitePrediction& site : lying.prediction.sites)
    site.sectors *= 1'000'000;
  json result = run_result_to_json(lying);
  // Each answer is the request's id, then the lying result (from a file: it is long).
  const std::string body = json{{"type", "result"}, {"result", result}}.dump();
  const std::string rest = test::write_file("lie.json", body.substr(1) + "\n");
  const std::string hello = json{
      {"id", 0},
      {"type", "hello"},
      {"protocol", kProtocolVersion},
      {"catalog",
       catalog_version()}}.dump();
  const std::string script = test::write_file(
      "liar.sh", "echo '" + hello + "'\nwhile read -r line; do\n" +
                     "  id=$(printf '%s' \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n" +
                     "  printf '{\"id\":%s,' \"$id\"; cat '" + rest + "'\ndone\n");
  WorkerClient client({.command = "sh " + script});
  WorkerRequest request = model_of("transpose/naive");
  const auto got = client.wait_for(client.submit(request), 30s);
  ASSERT_TRUE(got);
  ASSERT_TRUE(got->result) << got->error;
  const RunResult honest = modelled("transpose/naive");
  for (std::size_t i = 0; i < honest.prediction.sites.size(); ++i)
    EXPECT_EQ(got->result->prediction.sites[i].sectors, honest.prediction.sites[i].sectors);
}

const char* const kTwiceFile = R"(// @warplens kernel twice
// @warplens size n = 4096
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens grid ceil_div(n, block.x)
// @warplens check none
__global__ void twice(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * i;
}
)";

// A kernel file's answer: its measured lines within the file, its file's name, no check where it
// says `check none`.
TEST(HostileAnswers, AKernelFilesAnswerIsHeldToTheFile) {
  WL_SKIP_WITHOUT_ENGINE(); // NVRTC compiles it
  const std::string id = add_kernel_file(test::write_file("twice.cu", kTwiceFile));
  RunResult r = modelled(id);
  r.site_counts =
      attribute_lines("twice.cu",
                      {MeasuredInstruction{.pc = 0,
                                           .sass = "STG.E",
                                           .file = "twice.cu",
                                           .line = 9,
                                           .space = MemorySpace::global,
                                           .op = AccessOp::store,
                                           .async_copy = false,
                                           .width = 4,
                                           .executed = 128,
                                           .issued = 128,
                                           .lanes = 4096,
                                           .sectors = 512,
                                           .wavefronts = 0}},
                      {LineIssues{.line = 9, .issued = 128, .sectors = 512}}, r.prediction);
  EXPECT_NO_THROW(check_plausible(r, "answer"));
  RunResult far = r;
  far.site_counts->instructions[0].line = 2'000'000'000;
  test::expect_usage_error(
      [&] { check_plausible(far, "answer"); },
      {"site_counts.instructions[0].line: line 2000000000 of twice.cu", "allowed 0 (none) to 11"});
  RunResult lines = r;
  lines.site_counts->line_issues[0].line = 12;
  test::expect_usage_error([&] { check_plausible(lines, "answer"); },
                           {"site_counts.line_issues[0].line: line 12 of twice.cu"});
  RunResult other = r;
  other.site_counts->file = "secret.cu";
  test::expect_usage_error([&] { check_plausible(other, "answer"); },
                           {"site_counts.file: 'secret.cu'", "'twice.cu'"});
  RunResult verified = r;
  verified.verification = Verification{};
  verified.verification->passed = true;
  verified.verification->checked = 4096;
  test::expect_usage_error([&] { check_plausible(verified, "answer"); },
                           {"verification.passed", "says `check none`"});
}

} // namespace
} // namespace wl
