#pragma once
// Model mode's timings and counters: real runs from a recording (`warplens record`), the bundled
// ones in assets/recordings, one file per preset (h100.json, h200.json), or one a person chose
// (--recording FILE, File > Open a recording): every kernel at its default block and at its block
// presets, with timing, verification, the counters and every site's per-site measurement; the
// newer ones also the memory chart's counters, and at the default block the stalls and the
// energy. A model result for the same kernel, parameters and block on the recording's
// architecture takes the recorded figures, labelled with the device, the date, and where they
// differ from this one, the WarpLens that recorded them and the kernel's source, so the panels
// never pass a recording off as a measurement of this machine or of other code.

#include "model/run_result.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wl::viz {

struct Recording {
  std::string arch;        // the preset the recorded device matches, "h100"
  std::string device;      // "NVIDIA H100 80GB HBM3"
  std::string date;        // "2026-11-21"
  std::string warplens;    // the version that recorded it; "" when the file does not say
  std::string chosen_file; // the name of the file a person chose ("lab.json"); "" when bundled
  // The hash of each recorded kernel's source (kernel_source_hash), by kernel id; empty in a
  // recording made before recordings named them.
  std::map<std::string, std::string> sources;
  std::vector<RunResult> runs; // of kernels known when it was read
  // Runs of kernel files (whose kernels exist once the file is opened, and whose text may have
  // changed since), as JSON text by kernel id: read and checked when one of them is asked for.
  std::multimap<std::string, std::string> later_runs;

  // "recorded on NVIDIA H100 80GB HBM3, 2026-11-21", " by WarpLens 0.0.9" when another version
  // made it, and " (lab.json)" for one a person chose: a copy of a bundled one reads as its own.
  std::string label() const;
  // Copies the recorded timing, verification, counters, per-site figures, runtime occupancy,
  // stalls and energy of the matching run into `result` (a model result) and labels it; false
  // when nothing matches. A bundled kernel whose family file changed since is filled and its
  // label says so; a kernel file is filled only while its text is the one recorded.
  bool fill(RunResult& result) const;
  // Why a kernel file's launch is not filled although the recording has its kernel: "" when it
  // is not that.
  std::string other_text_of(const std::string& kernel_id) const;
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
  void hold(Recording recording, std::filesystem::path file); // one read already
  const std::filesystem::path& file() const;

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
  // A recording a person chose, read and checked now (throws UsageError naming the file and what
  // is wrong, and the shelf is unchanged): it answers for its preset in place of the bundled one.
  void choose(const std::filesystem::path& file);
  void use_bundled(); // forgets the one chosen
  const RecordingSlot* chosen() const { return m_chosen ? &*m_chosen : nullptr; }
  const RecordingSlot& of(const std::string& arch_id) const;

private:
  std::filesystem::path m_folder;
  std::string m_fallback;
  mutable std::map<std::string, RecordingSlot> m_slots;
  std::optional<RecordingSlot> m_chosen;
};

} // namespace wl::viz
