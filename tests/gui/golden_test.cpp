// Approval snapshots: what every output says (model JSON, sweep CSVs, screenshot sidecars, all of
// model mode, so any machine writes the same) is written by tests/golden/make_outputs.sh with this
// build and compared value for value with the approved outputs in tests/golden/current/. A change
// in what the tool says is then a diff of that folder that someone reads in review, made by
//   tests/golden/make_outputs.sh --update
// (which runs this test in update mode), never a list of exceptions that grows.

#include "../unit/test_support.h"
#include "gui_test_support.h"
#include "model/kernel_resources.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>

namespace wl::viz::test {
namespace {

const std::filesystem::path kGolden = std::filesystem::path(WARPLENS_SOURCE_TESTS) / "golden";
const std::filesystem::path kApproved = kGolden / "current";

// What differs from one run to the next with the same build, or from one machine to the next:
// how long the model took, when a picture was taken, the GPUs `arches` finds, and the font found
// (DejaVu Sans where fonts-dejavu-core is installed, else ImGui's own; where it is not the approved
// one's, what is shown is left out, below). Written as null in the snapshots, and not compared.
constexpr std::string_view kRunToRun[] = {"model_seconds", "taken", "devices", "font"};

bool run_to_run(std::string_view key) {
  return std::find(std::begin(kRunToRun), std::end(kRunToRun), key) != std::end(kRunToRun);
}

// A build without the toolkit reads the registers of the same compile from the record of it
// (kernels/recorded_resource_usage.txt), and says so: the same registers, another source.
std::string as_built(std::string text) {
  const std::string recorded = "ptxas, sm_90, recorded with nvcc " + recorded_nvcc_version();
  return text == recorded ? "ptxas, sm_90, at build time" : text;
}

void normalise(nlohmann::json& value) {
  if (value.is_object()) {
    for (auto& [key, member] : value.items())
      if (run_to_run(key))
        member = nullptr;
      else
        normalise(member);
  } else if (value.is_array()) {
    for (nlohmann::json& item : value)
      normalise(item);
  } else if (value.is_string()) {
    value = as_built(value.get<std::string>());
  }
}

// Equal as the outputs write them: "%.9g" in CSV cells, a double's shortest form in JSON.
bool same_number(double approved, double now) {
  return std::fabs(approved - now) <= 1e-8 * std::max(1.0, std::fabs(approved));
}

std::optional<double> number_in(const std::string& cell) {
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  return !cell.empty() && end == cell.c_str() + cell.size() ? std::optional(value) : std::nullopt;
}

// Every difference between two documents, by JSON pointer: a value changed, a member gone or new,
// a list grown or shrunk.
void compare(const nlohmann::json& approved, const nlohmann::json& now, const std::string& at,
             std::vector<std::string>& differences) {
  if (approved.is_number() && now.is_number()) {
    if (!same_number(approved.get<double>(), now.get<double>()))
      differences.push_back(at + ": " + approved.dump() + " approved, " + now.dump() + " now");
  } else if (approved.is_object() && now.is_object()) {
    for (const auto& [member, value] : approved.items())
      if (now.contains(member))
        compare(value, now[member], at + "/" + member, differences);
      else
        differences.push_back(at + "/" + member + ": gone");
    for (const auto& [member, value] : now.items())
      if (!approved.contains(member))
        differences.push_back(at + "/" + member + ": new");
  } else if (approved.is_array() && now.is_array() && approved.size() == now.size()) {
    for (std::size_t i = 0; i < approved.size(); ++i)
      compare(approved[i], now[i], at + "/" + std::to_string(i), differences);
  } else if (approved != now) {
    differences.push_back(at + ": " + approved.dump().substr(0, 300) + " approved, " +
                          now.dump().substr(0, 300) + " now");
  }
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

// A CSV as JSON (a list of rows of cells, numbers as numbers), compared as any document is.
nlohmann::json csv_document(const std::filesystem::path& file) {
  std::ifstream in(file);
  nlohmann::json rows = nlohmann::json::array();
  for (std::string line; std::getline(in, line);) {
    nlohmann::json row = nlohmann::json::array();
    for (const std::string& cell : csv_cells(line))
      if (const std::optional<double> number = number_in(cell))
        row.push_back(*number);
      else
        row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

// One output as it is compared: JSON normalised; a CSV as its rows. A sidecar's words and
// controls depend on the font found (DejaVu Sans where fonts-dejavu-core is installed, else ImGui's
// own): where it is not the approved one's, what is shown is left out.
nlohmann::json document(const std::filesystem::path& file) {
  if (file.extension() == ".csv")
    return csv_document(file);
  nlohmann::json value = read_json(file);
  normalise(value);
  return value;
}

// The font the approved sidecars were drawn with (fonts-dejavu-core, which the quick start
// installs).
constexpr std::string_view kApprovedFont = "DejaVu Sans";

// The font a sidecar was drawn with ("" for another output), read before it is normalised.
std::string font_of(const std::filesystem::path& file) {
  if (file.extension() != ".json")
    return "";
  const nlohmann::json value = read_json(file);
  return value.contains("screenshot") ? value["screenshot"].value("font", "") : "";
}

std::vector<std::filesystem::path> outputs_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    files.push_back(entry.path().filename());
  std::sort(files.begin(), files.end());
  return files;
}

std::filesystem::path outputs_now() {
  const std::filesystem::path dir = scratch_dir();
  const std::string command = (kGolden / "make_outputs.sh").string() + " '" + WARPLENS_BINARY +
                              "' '" + dir.string() + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return dir;
}

// WARPLENS_GOLDEN_UPDATE=1 (make_outputs.sh --update): the outputs now become the approved ones.
bool updating() {
  const char* update = std::getenv("WARPLENS_GOLDEN_UPDATE");
  return update && std::string_view(update) == "1";
}

void approve(const std::filesystem::path& now) {
  std::filesystem::remove_all(kApproved);
  std::filesystem::create_directories(kApproved);
  for (const std::filesystem::path& name : outputs_in(now)) {
    if (name.extension() == ".csv") {
      std::filesystem::copy_file(now / name, kApproved / name);
      continue;
    }
    std::ofstream(kApproved / name) << document(now / name).dump(1) << "\n";
  }
  std::cout << "approved " << outputs_in(kApproved).size() << " outputs in " << kApproved
            << ": review them with git diff\n";
}

std::string one_per_line(const std::vector<std::string>& lines) {
  std::string text;
  for (std::size_t i = 0; i < lines.size() && i < 40; ++i)
    text += lines[i] + "\n";
  if (lines.size() > 40)
    text += "... and " + std::to_string(lines.size() - 40) + " more\n";
  return text;
}

TEST(Golden, EveryOutputSaysWhatTheApprovedSnapshotSays) {
  const std::filesystem::path now = outputs_now();
  if (updating())
    return approve(now);
  const std::vector<std::filesystem::path> approved = outputs_in(kApproved),
                                           written = outputs_in(now);
  ASSERT_EQ(approved, written) << "the outputs written are not those approved";
  for (const std::filesystem::path& name : approved) {
    nlohmann::json before = document(kApproved / name), after = document(now / name);
    if (const std::string font = font_of(now / name); !font.empty() && font != kApprovedFont) {
      std::cout << name << ": drawn with " << font << ", not " << kApprovedFont
                << ": what is shown is not compared\n";
      before.erase("shown");
      after.erase("shown");
    }
    std::vector<std::string> differences;
    compare(before, after, "", differences);
    EXPECT_TRUE(differences.empty())
        << name << " differs from tests/golden/current/" << name.string() << ":\n"
        << one_per_line(differences)
        << "If the change is meant, run tests/golden/make_outputs.sh --update and review the diff.";
  }
}

// The comparison sees any change: a number, a word, a member gone or new, a row more.
TEST(Golden, AChangedValueOfAnApprovedOutputIsADifference) {
  const nlohmann::json approved = document(kApproved / "model_transpose_smem.json");
  const auto differences = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json now = approved;
    change(now);
    std::vector<std::string> found;
    compare(approved, now, "", found);
    return found;
  };
  EXPECT_TRUE(differences([](nlohmann::json&) {}).empty());
  const std::vector<std::string> one = differences([](nlohmann::json& j) {
    j["sites"][0]["sectors"] = j["sites"][0]["sectors"].get<double>() + 1;
  });
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].starts_with("/sites/0/sectors: ")) << one[0];
  EXPECT_FALSE(differences([](nlohmann::json& j) { j["kernel"] = "transpose/naive"; }).empty());
  EXPECT_FALSE(differences([](nlohmann::json& j) { j.erase("figures"); }).empty());
  EXPECT_FALSE(differences([](nlohmann::json& j) { j["figures"]["new_one"] = 1; }).empty());
  EXPECT_FALSE(differences([](nlohmann::json& j) { j["sites"].push_back(j["sites"][0]); }).empty());
  // A CSV's cell, read as a document.
  nlohmann::json csv = document(kApproved / "sweep_vec_add_scalar.csv"), changed = csv;
  changed[1][0] = "bogus";
  std::vector<std::string> found;
  compare(csv, changed, "", found);
  EXPECT_EQ(found.size(), 1u);
}

} // namespace
} // namespace wl::viz::test
