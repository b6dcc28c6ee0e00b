#include "workflows/recording.h"

#include "base/error.h"
#include "protocol/protocol.h"
#include "protocol/recording_file.h"

#include <nlohmann/json.hpp>

namespace wl::viz {

namespace {

bool same_shape(const BlockShape& a, const BlockShape& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

} // namespace

std::string Recording::label() const { return "recorded on " + device + ", " + date; }

bool Recording::fill(RunResult& result) const {
  if (result.arch.id != arch)
    return false;
  for (const RunResult& run : runs) {
    if (run.kernel_id != result.kernel_id || run.params != result.params ||
        !same_shape(run.launch.block, result.launch.block))
      continue;
    result.timing = run.timing;
    result.verification = run.verification;
    result.counters = run.counters;
    result.site_counts = run.site_counts;
    result.runtime_blocks_per_sm = run.runtime_blocks_per_sm;
    result.stalls = run.stalls;
    result.energy = run.energy;
    result.recorded_on = label();
    return true;
  }
  return false;
}

Recording load_recording(const std::filesystem::path& file) {
  const nlohmann::json j = read_recording(file);
  Recording recording;
  try {
    recording.arch = j.at("arch").get<std::string>();
    recording.device = j.at("device").get<std::string>();
    recording.date = j.at("date").get<std::string>();
    for (const nlohmann::json& run : j.at("runs"))
      recording.runs.push_back(run_result_from_json(run));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + ": not a recording (" + e.what() + ")");
  }
  return recording;
}

void RecordingSlot::load(std::filesystem::path file) {
  m_reading = std::make_shared<Reading>();
  m_reading->file = std::move(file);
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

const RecordingSlot& RecordingShelf::of(const std::string& arch_id) const {
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
