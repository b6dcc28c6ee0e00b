// A kernel is bundled (with its index math), a library call, or given at run time (its code and
// measured figures, no index math). The kind travels with every result, through the reports and
// the protocol, so a panel or a report says why a prediction is absent instead of inventing one.

#include "base/error.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "protocol/run_result_json.h"
#include "registry.h"
#include "report/run_report.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace wl {
namespace {

// A kernel as a run-time source would describe it: vec_add/scalar's launch, no sites.
KernelDesc run_time_saxpy(const std::string& id) {
  KernelDesc kernel = *find_kernel("vec_add/scalar");
  kernel.id = id;
  kernel.kind = KernelKind::bundled; // add_run_time_kernel says what it is
  kernel.sites.clear();
  return kernel;
}

RunResult model_of(const std::string& id) {
  return model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100"));
}

TEST(KernelKind, ARunTimeKernelIsFoundAfterTheBundledAndReplacedByItsId) {
  const KernelDesc& first = add_run_time_kernel(run_time_saxpy("mine/saxpy"));
  EXPECT_EQ(first.kind, KernelKind::run_time);
  EXPECT_EQ(find_kernel("mine/saxpy"), &first);
  KernelDesc again = run_time_saxpy("mine/saxpy");
  again.title = "saved again";
  const KernelDesc& second = add_run_time_kernel(std::move(again));
  EXPECT_EQ(find_kernel("mine/saxpy"), &second);
  EXPECT_EQ(first.id, "mine/saxpy"); // a request in flight still points at a live kernel
  int listed = 0;
  for (const KernelDesc* k : run_time_kernels())
    listed += k->id == "mine/saxpy" ? 1 : 0;
  EXPECT_EQ(listed, 1);
  for (const KernelDesc& k : all_kernels())
    EXPECT_NE(k.kind, KernelKind::run_time)
        << k.id << ": the bundled list holds no run-time kernel";
}

TEST(KernelKind, TheKindGoesThroughTheModelTheReportsAndTheProtocol) {
  add_run_time_kernel(run_time_saxpy("mine/kind"));
  const RunResult result = model_of("mine/kind");
  EXPECT_EQ(result.kernel_kind, KernelKind::run_time);
  EXPECT_TRUE(result.prediction.sites.empty());
  EXPECT_TRUE(result.occupancy.has_value()) << "the launch's resources still give an occupancy";
  EXPECT_NE(run_text(result).find("no access sites. A kernel given at run time"), std::string::npos)
      << run_text(result);
  const nlohmann::json json = run_json(result);
  EXPECT_EQ(json.at("kernel_kind"), "run_time");
  EXPECT_EQ(run_result_from_json(json).kernel_kind, KernelKind::run_time);
  EXPECT_EQ(run_result_from_json(run_json(model_of("matmul/cublas"))).kernel_kind,
            KernelKind::library);
}

TEST(KernelKind, AResultWrittenBeforeTheKindWasSaidReadsAsItsKernelsKind) {
  for (const char* id : {"vec_add/scalar", "matmul/cublas"}) {
    nlohmann::json json = run_json(model_of(id));
    json.erase("kernel_kind");
    EXPECT_EQ(run_result_from_json(json).kernel_kind, find_kernel(id)->kind) << id;
  }
}

TEST(KernelKind, AResultClaimingAnotherKindThanItsKernelsIsRefused) {
  nlohmann::json json = run_json(model_of("vec_add/scalar"));
  json["kernel_kind"] = "run_time";
  try {
    run_result_from_json(json);
    FAIL() << "a bundled kernel's result said run_time and was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_kind: run_time"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("allowed bundled"), std::string::npos) << e.what();
  }
  json["kernel_kind"] = "bogus";
  EXPECT_THROW(run_result_from_json(json), UsageError);
}

} // namespace
} // namespace wl
