#pragma once
// A recording (assets/recordings/*.json): real runs that model mode shows as recorded.

#include "model/run_result.h"

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// The file parsed through the guarded reader (json_input.h) and checked whole: its date a date,
// its sources hashes, every run of a known kernel a result a GPU can produce, of the device and
// preset the recording names, each launch once. A run of a kernel file (whose kernels exist once
// the file is opened, and whose text may differ from the one recorded) needs its source's hash
// and is read by read_recorded_run when it is asked for. A problem is one UsageError naming the
// file and the key.
nlohmann::json read_recording(const std::filesystem::path& file);

// Whether a recording's run of this kernel is read with the file (a kernel this binary holds),
// not when it is asked for (a kernel file's, whose text may have changed since).
bool is_bundled_kernel(const std::string& kernel_id);

// One run as read_recording checks those of bundled kernels: of `device`, on a GPU that stands
// for preset `arch`. Throws UsageError naming `at` and the key.
RunResult read_recorded_run(const nlohmann::json& run, const std::string& arch,
                            const std::string& device, const std::string& at);

} // namespace wl
