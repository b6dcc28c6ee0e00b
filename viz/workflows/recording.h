#pragma once
// Model mode's timings and counters: real runs bundled in assets/recordings, one file per preset
// (h100.json, h200.json; made on the GPU machine by `wl_bench record`): every kernel at its
// default block and at its block presets, with timing, verification, the counters and every
// site's per-site measurement; the newer ones also the memory chart's counters, and at the
// default block the stalls and the energy. A model result for the same kernel, parameters and
// block on the recording's architecture takes the recorded figures, labelled with the device and
// the date, so the panels never pass a recording off as a measurement of this machine.

#include "model/run_result.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wl::viz {

struct Recording {
  std::string arch;   // the preset the recorded device matches, "h100"
  std::string device; // "NVIDIA H100 80GB HBM3"
  std::string date;   // "2026-11-21"
  std::vector<RunResult> runs;

  std::string label() const; // "recorded on NVIDIA H100 80GB HBM3, 2026-11-21"
  // Copies the recorded timing, verification, counters, per-site figures, runtime occupancy,
  // stalls and energy of the matching run into `result` (a model result) and labels it; false
  // when nothing matches.
  bool fill(RunResult& result) const;
};

// Throws UsageError naming the file and what is wrong with it.
Recording load_recording(const std::filesystem::path& file);

// The bundled recording, read where it is first needed rather than when the App is made: its 5 MB
// of JSON take 0.3 s (0.45 s on the H200's host), and the first Run is sent before that. Read
// as a pointer (null: none, or it could not be read). Copies of an App share one reading. On
// the frame thread only (the App's): no thread of its own outlives the process's globals.
class RecordingSlot {
public:
  void load(std::filesystem::path file);

  const Recording* get() const;
  const Recording* operator->() const { return get(); }
  explicit operator bool() const { return get() != nullptr; }
  // Why the file could not be read ("" when it was, or none was asked for).
  std::string problem() const;

private:
  struct Reading {
    std::filesystem::path file;
    bool read = false;
    std::shared_ptr<const Recording> recording;
    std::string problem;
  };
  const Reading* reading() const;
  std::shared_ptr<Reading> m_reading;
};

// The bundled recordings by preset: FOLDER/ARCH.json for a preset that has one, each read at its
// first use; a preset without one is answered with the fallback preset's, whose label and arch
// say whose figures they are (and model mode says why it shows none).
class RecordingShelf {
public:
  void load_folder(std::filesystem::path folder, std::string fallback_arch);
  const RecordingSlot& of(const std::string& arch_id) const;

private:
  std::filesystem::path m_folder;
  std::string m_fallback;
  mutable std::map<std::string, RecordingSlot> m_slots;
};

} // namespace wl::viz
