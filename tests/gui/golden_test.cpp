// The renovation of the figure and panel tables kept what every output says: the files
// tests/golden/make_outputs.sh writes with this build (model JSON, sweep CSVs, screenshot sidecars,
// all of model mode) hold what the commit before it wrote (tests/golden/1abc513/), value for
// value, up to the renames and additions the README's "Changes" lists. The lists below are those
// changes; a test checks that the README names each.

#include "../unit/test_support.h"
#include "gui_test_support.h"
#include "model/kernel_resources.h"
#include "registry.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>

namespace wl::viz::test {
namespace {

const std::filesystem::path kGolden = std::filesystem::path(WARPLENS_SOURCE_TESTS) / "golden";
const std::filesystem::path kBefore = kGolden / "1abc513";

// A CSV column renamed, and the factor its values took (a fraction that became a percentage).
struct Rename {
  std::string_view before, after;
  double scale = 1;
};
constexpr Rename kCsvRenames[] = {
    {.before = "median_ms", .after = "median_time"},
    {.before = "min_ms", .after = "min_time"},
    {.before = "gbps", .after = "throughput"},
    {.before = "peak_fraction", .after = "share_of_peak", .scale = 100},
    {.before = "gflops", .after = "compute"},
    {.before = "occupancy", .after = "theoretical_occupancy", .scale = 100},
    {.before = "theoretical_occupancy", .after = "theoretical_occupancy", .scale = 100},
    {.before = "noise", .after = "noise", .scale = 100},
};
constexpr std::string_view kNewCsvColumns[] = {"bytes_moved",
                                               "arithmetic",
                                               "arithmetic_intensity",
                                               "time_at_peak_bytes",
                                               "dram_bytes",
                                               "modelled_time",
                                               "sectors_per_request",
                                               "wavefronts_per_request",
                                               "lanes_per_instruction",
                                               "share_of_peak",
                                               "compute", // these two: sweep --csv's
                                               "compute_share_of_peak"};

// A JSON value that moved, by JSON pointer, and members a result's JSON gained (wherever a result
// is: a model's output, a sidecar's result and modelled).
constexpr Rename kJsonMoves[] = {{.before = "/figures/time_at_peak_bandwidth_ms",
                                  .after = "/result/figures/time_at_peak_bytes"}};
constexpr std::string_view kNewResultMembers[] = {"figures", "kernel_kind"};
// Members an arch gained (wherever an arch's details are): what L2 serves the SMs. A preset's
// source then also names where that figure comes from, after what it said before.
constexpr std::string_view kNewArchMembers[] = {"l2_bandwidth_gbps"};
// Rows the counter comparison gained after the counters' own: the figures several counters make.
constexpr std::string_view kNewComparisonRows[] = {"fp32_operations", "dram_traffic", "l2_traffic"};
// Members a result's verification gained.
constexpr std::string_view kNewVerificationMembers[] = {"against", "skipped"};
// Members a result's timing gained: the SM clock and the throttled samples.
constexpr std::string_view kNewTimingMembers[] = {"sm_clock_mhz", "default_clock_mhz",
                                                  "throttled_samples", "throttled_samples_kept"};
// What differs from one run or machine to the next with the same build: how long the model took,
// when and where a picture was taken, and the font found (DejaVu Sans where fonts-dejavu-core is
// installed, else ImGui's own), with the places of the controls it sizes.
constexpr std::string_view kRunToRun[] = {"model_seconds", "taken", "path", "font", "x", "y"};
// Where a site's access is written in its family file: it moves with any edit above it, which
// no output's figure depends on (the Source panel's stories and the PTX line-table test check
// each line where it is now).
constexpr std::string_view kSourcePlaces[] = {"line"};
// Where the font found differs from the one the golden files were made with, the controls on
// screen and the words drawn differ too (a smaller font shows more): only what the sidecar says of
// the launch is compared then (configuration, result, modelled, figures).

// Bytes written one way everywhere: "5.0 KiB" in some panels before is "5 KiB" now.
std::string bytes_as_now(const std::string& words) {
  static const std::regex whole(R"((\d)\.0 (B|KiB|MiB|GiB|TiB)\b)");
  return std::regex_replace(words, whole, "$1 $2");
}

// Panels whose words changed as the README says: the Timings panel lists the figure table's launch
// figures (StoryTimings.EveryLaunchFigureOfTheTableIsInThePanelAndTheSidecar checks each is
// drawn), and the Counters panel writes each counter with its figure's decimals (an achieved
// occupancy of 94.5, not 95). The Launch panel's catalog grew by the new matmul rungs, which moves
// the words below it. Their words are left out here; the figures and counters they show are
// compared through the sidecar's result.
constexpr std::string_view kPanelsRewritten[] = {"timings", "counters", "launch"};
// Words added where a panel was blank: an impact curve with one point says why it draws none.
// And the Occupancy panel's registers row names the thread's local memory.
const std::regex
    kNewSentences(R"(no other [a-z /]+ fits this launch's parameters: nothing to draw\n?|)"
                  R"( \(no local memory\)| \+ [0-9.]+ [KMG]?i?B local)");
// Controls added on screen: the menu bar's File menu (kernel files). Left out of `shown` here.
constexpr std::string_view kNewControls[] = {"File"};
// The Launch panel's catalog tree: the README's new kernels made it longer, so its rows and the
// words below them scroll to other places in the panel's picture. Its entries (kernel ids and
// families) are left out of the controls, and its words as a rewritten panel's; the catalog is
// checked by CliKernels.ListShowsEveryKernel and the Launch panel's stories.
bool a_catalog_entry(const std::string& label) {
  for (const KernelDesc& kernel : all_kernels())
    if (label == kernel.id || label == kernel_family(kernel.id))
      return true;
  return false;
}
// How many warp-iterations the model analysed for its estimate: its budget is now shared out as
// the README's changes say (a stratum that needs less than its share leaves the rest to the
// others), so a sampled launch analyses more of them; the figures estimated are compared.
constexpr std::string_view kModelEffort[] = {"model_warp_iterations_evaluated"};

// A measured instruction's members added as the README's changes say: whether it is half of an
// LDGSTS (cp.async).
constexpr std::string_view kNewInstructionMembers[] = {"async_copy"};

// Sidecar members added as the README's changes say: the Index playground panel's.
constexpr std::string_view kNewSidecarMembers[] = {
    "/configuration/panels_open/playground", "/shown/playground",
    "/configuration/panels_open/lessons",    "/shown/lesson",
    "/configuration/panels_open/roofline",   "/shown/roofline"};

std::string one_per_line(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += line + "\n";
  return text;
}

bool listed(std::span<const std::string_view> list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"')
      cells.back() += '"', ++i;
    else if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      cells.emplace_back();
    else
      cells.back() += c;
  }
  return cells;
}

std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);)
    rows.push_back(csv_cells(line));
  return rows;
}

std::optional<double> number_in(const std::string& cell) {
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  return !cell.empty() && end == cell.c_str() + cell.size() ? std::optional(value) : std::nullopt;
}

// Equal as the outputs write them: "%.9g" in CSV cells, a double's shortest form in JSON.
bool same_number(double before, double after) {
  return std::fabs(before - after) <= 1e-8 * std::max(1.0, std::fabs(before));
}

void expect_same_csv(const std::string& name, const std::filesystem::path& now) {
  const auto before = read_csv(kBefore / name), after = read_csv(now / name);
  ASSERT_FALSE(before.empty()) << name;
  ASSERT_EQ(before.size(), after.size()) << name << ": rows";
  const std::vector<std::string>&old_header = before[0], &new_header = after[0];
  std::vector<std::string> accounted;
  for (std::size_t c = 0; c < old_header.size(); ++c) {
    Rename rename{.before = old_header[c], .after = old_header[c]};
    for (const Rename& r : kCsvRenames)
      if (r.before == old_header[c])
        rename = r;
    const auto at = std::find(new_header.begin(), new_header.end(), rename.after);
    ASSERT_NE(at, new_header.end()) << name << ": column " << old_header[c] << " is gone";
    accounted.emplace_back(rename.after);
    const std::size_t n = static_cast<std::size_t>(at - new_header.begin());
    for (std::size_t row = 1; row < before.size(); ++row) {
      const std::string &was = before[row].at(c), &is = after[row].at(n);
      const std::optional<double> a = number_in(was), b = number_in(is);
      if (a && b)
        EXPECT_TRUE(same_number(*a * rename.scale, *b))
            << name << " row " << row << " " << old_header[c] << ": " << was << " then, " << is;
      else
        EXPECT_EQ(was, is) << name << " row " << row << " " << old_header[c];
    }
  }
  for (const std::string& column : new_header)
    EXPECT_TRUE(listed(kNewCsvColumns, column) ||
                std::find(accounted.begin(), accounted.end(), column) != accounted.end())
        << name << ": column " << column << " is new and not in the README's changes";
}

// A build without the toolkit reads the registers of the same compile from the record of it
// (kernels/recorded_resource_usage.txt), and says so.
bool same_compile(const nlohmann::json& before, const nlohmann::json& after) {
  return before == "ptxas, sm_90, at build time" &&
         after == "ptxas, sm_90, recorded with nvcc " + recorded_nvcc_version();
}

struct JsonDiff {
  std::vector<std::string> differences;

  void compare(const nlohmann::json& before, const nlohmann::json& after, const std::string& at) {
    const std::string key = at.substr(at.rfind('/') + 1);
    if (listed(kRunToRun, key) || listed(kSourcePlaces, key) || listed(kModelEffort, key))
      return;
    if (at.ends_with("/arch_details/source") && before.is_string() && after.is_string() &&
        after.get<std::string>().starts_with(before.get<std::string>()))
      return;
    if (at.ends_with("/counters/comparison"))
      return compare_comparison(before, after, at);
    if (before.is_number() && after.is_number()) {
      if (!same_number(before.get<double>(), after.get<double>()))
        differences.push_back(at + ": " + before.dump() + " then, " + after.dump());
      return;
    }
    if (before.is_object() && after.is_object()) {
      for (const auto& [member, value] : before.items())
        if (after.contains(member))
          compare(value, after[member], at + "/" + member);
        else if (!moved(at + "/" + member))
          differences.push_back(at + "/" + member + ": gone");
      const bool a_result = after.contains("kernel") && after.contains("sites");
      const bool a_verification = at.ends_with("/verification");
      const bool a_timing = at.ends_with("/timing");
      const bool an_arch = at.ends_with("/arch_details");
      const bool an_instruction = at.find("/site_counts/instructions/") != std::string::npos;
      for (const auto& [member, value] : after.items())
        if (!before.contains(member) && !(a_result && listed(kNewResultMembers, member)) &&
            !(a_verification && listed(kNewVerificationMembers, member)) &&
            !(a_timing && listed(kNewTimingMembers, member)) &&
            !(an_arch && listed(kNewArchMembers, member)) &&
            !(an_instruction && listed(kNewInstructionMembers, member)) &&
            !listed(kNewSidecarMembers, at + "/" + member))
          differences.push_back(at + "/" + member + ": new, and not in the README's changes");
      return;
    }
    if (before.is_array() && after.is_array() && before.size() == after.size()) {
      for (std::size_t i = 0; i < before.size(); ++i)
        compare(before[i], after[i], at + "/" + std::to_string(i));
      return;
    }
    if (before != after && !same_compile(before, after))
      differences.push_back(at + ": " + before.dump().substr(0, 200) + " then, " +
                            after.dump().substr(0, 200));
  }

  // The rows before, each as it was, then only rows of kNewComparisonRows.
  void compare_comparison(const nlohmann::json& before, const nlohmann::json& after,
                          const std::string& at) {
    if (!before.is_array() || !after.is_array() || after.size() < before.size()) {
      differences.push_back(at + ": rows gone");
      return;
    }
    for (std::size_t i = 0; i < after.size(); ++i)
      if (i < before.size())
        compare(before[i], after[i], at + "/" + std::to_string(i));
      else if (!listed(kNewComparisonRows, after[i].value("key", "")))
        differences.push_back(at + "/" + std::to_string(i) + ": a new row " +
                              after[i].value("key", "") + ", not in the README's changes");
  }

  bool moved(const std::string& pointer) const {
    for (const Rename& move : kJsonMoves)
      if (move.before == pointer)
        return true;
    return false;
  }
};

std::filesystem::path outputs_now() {
  const std::filesystem::path dir = scratch_dir();
  const std::string command = (kGolden / "make_outputs.sh").string() + " '" + WARPLENS_BINARY +
                              "' '" + dir.string() + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return dir;
}

TEST(Golden, TheModelsJsonAndTheSweepCsvsSayWhatTheySaidBefore) {
  const std::filesystem::path now = outputs_now();
  for (const char* name :
       {"sweep_vec_add_scalar.csv", "sweep_transpose_smem.csv", "sweep_matmul_tiled.csv"})
    expect_same_csv(name, now);
  for (const char* kernel :
       {"vec_add_scalar", "transpose_smem", "matmul_tiled", "matmul_cublas", "softmax_online"}) {
    const std::string name = std::string("model_") + kernel + ".json";
    JsonDiff diff;
    diff.compare(read_json(kBefore / name), read_json(now / name), "");
    EXPECT_TRUE(diff.differences.empty()) << name << ":\n" << one_per_line(diff.differences);
  }
}

TEST(Golden, ScreenshotSidecarsSayWhatTheySaidBefore) {
  const std::filesystem::path now = outputs_now();
  for (const char* kernel : {"transpose_smem", "matmul_tiled"}) {
    const std::string name = std::string("sidecar_") + kernel + ".json";
    nlohmann::json before = read_json(kBefore / name), after = read_json(now / name);
    for (std::string_view panel : kPanelsRewritten) {
      before["shown"]["text"].erase(std::string(panel));
      after["shown"]["text"].erase(std::string(panel));
    }
    for (auto& [panel, words] : before["shown"]["text"].items())
      words = bytes_as_now(words.get<std::string>());
    for (auto& [panel, words] : after["shown"]["text"].items())
      words = std::regex_replace(words.get<std::string>(), kNewSentences, "");
    nlohmann::json& controls = after["shown"]["controls"];
    for (std::size_t i = controls.size(); i-- > 0;)
      if (listed(kNewControls, controls[i]["label"].get<std::string>()) ||
          a_catalog_entry(controls[i]["label"].get<std::string>()))
        controls.erase(i);
    nlohmann::json& controls_before = before["shown"]["controls"];
    for (std::size_t i = controls_before.size(); i-- > 0;)
      if (a_catalog_entry(controls_before[i]["label"].get<std::string>()))
        controls_before.erase(i);
    if (before["screenshot"]["font"] != after["screenshot"]["font"]) {
      std::cout << name << ": drawn with " << after["screenshot"]["font"]
                << ", not the golden files' font: what is shown is not compared\n";
      before.erase("shown");
      after.erase("shown");
    }
    JsonDiff diff;
    diff.compare(before, after, "");
    EXPECT_TRUE(diff.differences.empty()) << name << ":\n" << one_per_line(diff.differences);
    for (const Rename& move : kJsonMoves)
      EXPECT_TRUE(same_number(before.at(nlohmann::json::json_pointer(std::string(move.before))),
                              after.at(nlohmann::json::json_pointer(std::string(move.after)))))
          << name << ": " << move.before << " then, " << move.after << " now";
  }
}

TEST(Golden, TheReadmeNamesEveryChange) {
  std::ifstream in(std::filesystem::path(WARPLENS_SOURCE_TESTS) / ".." / "README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // One line: a name and its rename may sit either side of a line break.
  const std::string changes =
      std::regex_replace(readme.substr(readme.find("## Changes")), std::regex("\n +"), " ");
  for (const Rename& r : kCsvRenames) {
    if (r.before != r.after) {
      EXPECT_TRUE(wl::test::contains(changes, "`" + std::string(r.before) + "` is `" +
                                                  std::string(r.after) + "`"))
          << r.before;
    }
  }
  for (std::string_view column : kNewCsvColumns)
    EXPECT_TRUE(wl::test::contains(changes, "`" + std::string(column) + "`")) << column;
  for (std::string_view member : kNewResultMembers)
    EXPECT_TRUE(wl::test::contains(changes, "`" + std::string(member) + "`")) << member;
  for (std::string_view member : kNewVerificationMembers)
    EXPECT_TRUE(wl::test::contains(changes, "`" + std::string(member) + "`")) << member;
  for (std::string_view member : kNewArchMembers)
    EXPECT_TRUE(wl::test::contains(changes, "`" + std::string(member) + "`")) << member;
  for (std::string_view row : kNewComparisonRows)
    EXPECT_TRUE(wl::test::contains(changes, "`" + std::string(row) + "`")) << row;
  EXPECT_TRUE(wl::test::contains(changes, "`(no local memory)`")); // kNewSentences
  for (std::string_view member : kNewTimingMembers)
    EXPECT_TRUE(wl::test::contains(changes, "`" + std::string(member) + "`")) << member;
  for (std::string_view member : kNewSidecarMembers)
    EXPECT_TRUE(
        wl::test::contains(changes, "`" + std::string(member.substr(member.rfind('/') + 1)) + "`"))
        << member;
  EXPECT_TRUE(wl::test::contains(changes, "`figures.time_at_peak_bandwidth_ms` is "
                                          "`result.figures.time_at_peak_bytes`"));
  EXPECT_TRUE(wl::test::contains(changes, "`5.0 KiB`")); // bytes_as_now
  EXPECT_TRUE(wl::test::contains(
      changes, "The Counters panel writes each counter with its figure"));    // kPanelsRewritten
  EXPECT_TRUE(wl::test::contains(changes, "Five new matmul rungs"));          // a_catalog_entry
  EXPECT_TRUE(wl::test::contains(changes, "a stratum that needs less than")); // kModelEffort
  EXPECT_TRUE(wl::test::contains(changes, "says why it draws none"));         // kNewSentences
  for (std::string_view control : kNewControls)
    EXPECT_TRUE(wl::test::contains(changes, "menu bar gains " + std::string(control))) << control;
}

} // namespace
} // namespace wl::viz::test
