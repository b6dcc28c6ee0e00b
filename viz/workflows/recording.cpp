#include "workflows/recording.h"

#include "base/error.h"
#include "base/json_input.h"
#include "kernel_file/file_kernel.h"
#include "protocol/protocol.h"
#include "protocol/recording_file.h"
#include "registry.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

namespace wl::viz {

namespace {

bool same_shape(const BlockShape& a, const BlockShape& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

// The hash of the code the kernel on screen is built from, and its name; "" for a kernel this
// binary cannot name (a family file it does not hold).
std::string current_source_hash(const KernelDesc* kernel) {
  try {
    return kernel ? kernel_source_hash(*kernel) : "";
  } catch (const Error&) {
    return "";
  }
}

std::string source_name(const KernelDesc* kernel, const std::string& kernel_id) {
  try {
    return kernel ? kernel_source_name(*kernel) : kernel_id;
  } catch (const Error&) {
    return kernel_id + "'s source";
  }
}

bool is_own_file(const KernelDesc* kernel) {
  return kernel && kernel->kind == KernelKind::run_time;
}

} // namespace

std::string Recording::label() const {
  return "recorded on " + device + ", " + date +
         (warplens.empty()               ? " by a WarpLens that did not name its version"
          : warplens != WARPLENS_VERSION ? " by WarpLens " + warplens
                                         : "") +
         (chosen_file.empty() ? "" : " (" + chosen_file + ")");
}

std::string Recording::other_text_of(const std::string& kernel_id) const {
  const KernelDesc* kernel = find_kernel(kernel_id);
  const auto recorded = sources.find(kernel_id);
  if (!is_own_file(kernel) || recorded == sources.end() ||
      recorded->second == current_source_hash(kernel))
    return "";
  return "the recording (" + label() + ") measured another text of " +
         source_name(kernel, kernel_id) +
         ": its figures are shown only while the file is the one "
         "recorded";
}

namespace {

bool same_launch(const RunResult& run, const RunResult& result) {
  return run.kernel_id == result.kernel_id && run.params == result.params &&
         same_shape(run.launch.block, result.launch.block);
}

// A run of a kernel file opened after the recording was read, matching `result`'s launch.
std::optional<RunResult> later_run(const Recording& recording, const RunResult& result) {
  const auto [first, last] = recording.later_runs.equal_range(result.kernel_id);
  for (auto text = first; text != last; ++text) {
    const nlohmann::json run = nlohmann::json::parse(text->second); // as load_recording wrote it
    try {
      RunResult read = read_recorded_run(run, recording.arch, recording.device,
                                         "the recording's run of " + result.kernel_id);
      if (same_launch(read, result))
        return read;
    } catch (const Error&) { // not a run this GPU could make of this kernel: never shown
    }
  }
  return std::nullopt;
}

} // namespace

bool Recording::fill(RunResult& result) const {
  if (result.arch.id != arch)
    return false;
  const KernelDesc* kernel = find_kernel(result.kernel_id);
  const auto recorded = sources.find(result.kernel_id);
  const std::string source_now = current_source_hash(kernel);
  const bool same_source = recorded != sources.end() && recorded->second == source_now;
  if (is_own_file(kernel) && !same_source) // a person's file: its figures are of its text alone
    return false;
  const auto found = std::find_if(runs.begin(), runs.end(),
                                  [&](const RunResult& run) { return same_launch(run, result); });
  const std::optional<RunResult> later =
      found == runs.end() ? later_run(*this, result) : std::nullopt;
  if (found == runs.end() && !later)
    return false;
  const RunResult& run = later ? *later : *found;
  result.timing = run.timing;
  result.verification = run.verification;
  result.counters = run.counters;
  result.site_counts = run.site_counts;
  result.runtime_blocks_per_sm = run.runtime_blocks_per_sm;
  result.stalls = run.stalls;
  result.energy = run.energy;
  result.recorded_on = label();
  if (recorded == sources.end())
    result.recorded_on += "; which source it ran is not recorded";
  else if (!same_source)
    result.recorded_on += "; " + source_name(kernel, result.kernel_id) + " has changed since";
  return true;
}

Recording load_recording(const std::filesystem::path& file) {
  const nlohmann::json j = read_recording(file);
  Recording recording;
  try {
    recording.arch = j.at("arch").get<std::string>();
    recording.device = j.at("device").get<std::string>();
    recording.date = j.at("date").get<std::string>();
    recording.warplens = j.value("warplens", "");
    if (j.contains("sources"))
      recording.sources = j.at("sources").get<std::map<std::string, std::string>>();
    for (const nlohmann::json& run : j.at("runs")) {
      if (is_bundled_kernel(run.at("kernel").get<std::string>()))
        recording.runs.push_back(run_result_from_json(run));
      else
        recording.later_runs.emplace(run.at("kernel").get<std::string>(), run.dump());
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + ": not a recording (" + e.what() + ")");
  }
  return recording;
}

void RecordingSlot::load(std::filesystem::path file) {
  m_reading = std::make_shared<Reading>();
  m_reading->file = std::move(file);
}

void RecordingSlot::hold(Recording recording, std::filesystem::path file) {
  m_reading = std::make_shared<Reading>();
  m_reading->file = std::move(file);
  m_reading->read = true;
  m_reading->recording = std::make_shared<const Recording>(std::move(recording));
}

const std::filesystem::path& RecordingSlot::file() const {
  static const std::filesystem::path none;
  return m_reading ? m_reading->file : none;
}

const RecordingSlot::Reading* RecordingSlot::reading() const {
  if (!m_reading)
    return nullptr;
  Reading& r = *m_reading;
  if (!r.read) {
    r.read = true;
    try {
      if (std::filesystem::exists(r.file))
        r.recording = std::make_shared<const Recording>(load_recording(r.file));
    } catch (const std::exception& e) {
      r.problem = e.what();
    }
  }
  return &r;
}

const Recording* RecordingSlot::get() const {
  const Reading* r = reading();
  return r ? r->recording.get() : nullptr;
}

std::string RecordingSlot::problem() const {
  const Reading* r = reading();
  return r ? r->problem : "";
}

void RecordingShelf::load_folder(std::filesystem::path folder, std::string fallback_arch) {
  m_folder = std::move(folder);
  m_fallback = std::move(fallback_arch);
  m_slots.clear();
}

void RecordingShelf::choose(const std::filesystem::path& file) {
  Recording recording = load_recording(file); // throws before anything changes
  recording.chosen_file = clip(file.filename().string(), 60);
  m_chosen.emplace();
  m_chosen->hold(std::move(recording), file);
}

void RecordingShelf::use_bundled() { m_chosen.reset(); }

const RecordingSlot& RecordingShelf::of(const std::string& arch_id) const {
  if (m_chosen && m_chosen->get()->arch == arch_id)
    return *m_chosen;
  std::error_code missing;
  const std::string arch = std::filesystem::is_regular_file(m_folder / (arch_id + ".json"), missing)
                               ? arch_id
                               : m_fallback;
  auto [slot, added] = m_slots.try_emplace(arch);
  if (added && !m_folder.empty())
    slot->second.load(m_folder / (arch + ".json"));
  return slot->second;
}

} // namespace wl::viz
