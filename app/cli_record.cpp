// `warplens record [KERNEL|FILE|LESSON ...] [--lessons] --out FILE`: a recording of this GPU's
// measurements of bundled kernels and kernel files (engine/recording_run.h), the file model mode
// shows for its preset (the bundled one, or --recording FILE). The output
// is checked before anything is measured and written whole after each kernel, so a run cut short
// keeps what it measured and never leaves half a file.

#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "cli_commands.h"
#include "cli_numbers.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "lesson/lesson_judge.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "registry.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#ifdef WARPLENS_LINKS_ENGINE
#include "engine/device.h"
#include "engine/recording_run.h"
#endif

namespace wl {

namespace {

struct RecordOptions {
  std::vector<std::string> kernels; // ids, kernel files and lesson files; none: every bundled
                                    // kernel (none with --lessons)
  bool lessons = false;             // every launch the bundled lessons' steps make
  std::string out;
  std::string arch; // the preset it stands for; "": the one that matches the GPU
  bool force = false;
};

// Whether a name given to record is a lesson: a .lesson file, or a bundled lesson's name
// (`record coalescing`); a kernel id is never one, having a '/'.
bool names_a_lesson(const std::string& name) {
  if (name.ends_with(".lesson"))
    return true;
  if (name.find('/') != std::string::npos || names_a_kernel_file(name))
    return false;
  try {
    static_cast<void>(find_lesson(name));
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

// The kernels named: a bundled kernel's id, or a kernel file ("x.cu" for every kernel it
// describes, "x.cu:kernel" for one), whose runs model mode shows while that file's text is the
// one recorded; every bundled kernel where none is named and no lesson's launches are asked for.
std::vector<const KernelDesc*> kernels_named(const std::vector<std::string>& names, bool lessons) {
  std::vector<const KernelDesc*> kernels;
  const bool lesson_named = std::any_of(names.begin(), names.end(), names_a_lesson);
  if (names.empty() && !lessons && !lesson_named)
    for (const KernelDesc& kernel : all_kernels())
      kernels.push_back(&kernel);
  std::map<std::string, std::string> files; // kernel id -> the file that made it
  const auto add = [&](const std::string& id, const std::string& file) {
    const KernelDesc* kernel = find_kernel(id);
    if (!kernel)
      throw UsageError("record: '" + clip(id, 60) +
                       "' is no bundled kernel (warplens list names them), kernel file "
                       "(FILE.cu or FILE.cu:KERNEL) nor lesson (a bundled one's name, e.g. "
                       "coalescing, or FILE.lesson)");
    // Two files of one name make one kernel id: a recording could not tell their runs apart.
    if (const auto [named, added] = files.try_emplace(id, file); !added && named->second != file)
      throw UsageError("record: " + clip(named->second, 80) + " and " + clip(file, 80) +
                       " both make kernel " + id + "; record them into two recordings");
    if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end())
      kernels.push_back(kernel);
  };
  for (const std::string& name : names) {
    if (names_a_lesson(name)) // its launches are recorded (lessons_asked)
      continue;
    const std::string file = kernel_file_path(name);
    if (!names_a_kernel_file(name))
      add(name, "");
    else if (file != name)
      add(add_kernel_file(name), std::filesystem::weakly_canonical(file).string());
    else
      for (const std::string& id : use_kernel_file(read_kernel_file(name)))
        add(id, std::filesystem::weakly_canonical(file).string());
  }
  return kernels;
}

// The lessons whose launches are recorded: the bundled ones with --lessons, and each lesson file
// named, checked as `lesson check` checks it (its first problem is the error).
std::vector<Lesson> lessons_asked(const RecordOptions& o, const std::vector<Arch>& presets) {
  std::vector<Lesson> lessons;
  if (o.lessons)
    for (const std::filesystem::path& file : bundled_lessons())
      lessons.push_back(load_lesson(file));
  for (const std::string& name : o.kernels)
    if (names_a_lesson(name)) {
      CheckedLessonFile checked = check_lesson_file(find_lesson(name), presets);
      if (!checked.problems.empty())
        throw UsageError("record: " + checked.problems.front() + " (warplens lesson check " +
                         clip(name, 80) + " names them all)");
      lessons.push_back(std::move(*checked.lesson));
    }
  return lessons;
}

#ifdef WARPLENS_LINKS_ENGINE
// The steps of a lesson named that a recording leaves out, a line each on stderr: a kernel file
// is recorded by naming it, and an exercise's copy is each learner's own.
void say_steps_left_out(const std::vector<Lesson>& lessons, const RecordOptions& o) {
  for (const Lesson& lesson : lessons) {
    if (std::find(o.kernels.begin(), o.kernels.end(), lesson.file) == o.kernels.end())
      continue; // a bundled lesson (--lessons): its exercises are known
    for (const LessonStep& step : lesson.steps)
      if (!step.playground && names_a_kernel_file(step.kernel))
        std::fprintf(stderr, "%s:%d: %s\n", lesson.file.c_str(), step.line,
                     step.exercise
                         ? "an exercise: not recorded (each learner's copy is judged with the "
                           "models, or measured where a GPU is)"
                         : ("kernel file " + step.kernel +
                            " not recorded with the lesson: name it to record its kernels at "
                            "their default launches")
                               .c_str());
  }
}
#endif

// --force replaces an existing recording, never a kernel or lesson file being recorded, however
// its path is spelt (std::filesystem::equivalent).
void check_out_is_no_kernel_file(const RecordOptions& o) {
  for (const std::string& name : o.kernels) {
    const bool lesson = names_a_lesson(name);
    std::error_code error;
    if ((lesson || names_a_kernel_file(name)) &&
        std::filesystem::equivalent(lesson ? find_lesson(name).string() : kernel_file_path(name),
                                    o.out, error))
      throw UsageError("--out " + clip(o.out, 80) + " is the " +
                       (lesson ? "lesson" : "kernel file") + " " + clip(name, 80) +
                       " being recorded; give the recording a file of its own");
  }
}

void run_record(const RecordOptions& o) {
  check_out_is_no_kernel_file(o);
  const std::vector<const KernelDesc*> kernels = kernels_named(o.kernels, o.lessons);
  const OutputRules rules{
      .replace_existing = o.force, .write_through_links = false, .keep_on_failure = true};
  if (const std::string problem =
          output_problem(o.out, rules, "add --force to replace it, or give another name");
      !problem.empty())
    throw UsageError("--out " + problem);
  const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
  const std::vector<Lesson> lessons = lessons_asked(o, presets);
  const std::vector<KernelRequest> launches = lesson_launches(lessons, presets);
  if (kernels.empty() && launches.empty()) // a lesson named alone, all of kernel files
    throw UsageError("record: the lessons named make no launch of a bundled kernel (their steps "
                     "are on kernel files or playgrounds): name the kernel files to record them");
  if (!o.arch.empty()) // named before any GPU is asked for
    try {
      static_cast<void>(find_arch(presets, o.arch));
    } catch (const Error& e) {
      throw UsageError("--arch: " + std::string(e.what()));
    }
#ifndef WARPLENS_LINKS_ENGINE
  needs_engine("warplens record");
#else
  const Arch device = arch_from_device(0);
  // The preset's id, never an alias or a path: model mode finds a recording by its preset's id.
  const std::string arch =
      o.arch.empty() ? preset_of_device(device, presets).id : find_arch(presets, o.arch).id;
  if (const std::string refusal = preset_refusal(find_arch(presets, arch), device, presets);
      !refusal.empty())
    throw UsageError("--arch " + clip(arch, 40) + ": " + refusal +
                     "; model mode would refuse the recording");
  const OutputRules again{
      .replace_existing = true, .write_through_links = false, .keep_on_failure = true};
  bool first = true;
  say_steps_left_out(lessons, o);
  const nlohmann::json recording = record_kernels(
      kernels, launches, arch,
      [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); },
      [&](const nlohmann::json& so_far) {
        if (const std::string problem =
                write_file_safely(o.out, so_far.dump() + "\n", first ? rules : again);
            !problem.empty())
          throw UsageError("--out " + problem);
        first = false;
      });
  std::printf("%zu runs of %zu kernels and %zu lesson launches on %s, as preset %s, written "
              "to %s\n",
              recording["runs"].size(), kernels.size(), launches.size(),
              recording["device"].get<std::string>().c_str(), arch.c_str(), o.out.c_str());
#endif
}

} // namespace

void add_record_command(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand(
      "record", "Measure kernels on this GPU into a recording that model mode shows for its "
                "preset: gui --recording FILE (manual: docs/gui.md, model mode)");
  cmd->add_option("kernels", o->kernels,
                  "Kernel ids, kernel files (FILE.cu or FILE.cu:KERNEL) or lessons (a bundled "
                  "one's name or FILE.lesson: every launch its steps make on a bundled kernel) "
                  "(default: every bundled kernel, unless --lessons or a lesson alone)")
      ->check(written_option("a kernel id, e.g. vec_add/scalar, a kernel file or a lesson"));
  cmd->add_option("--out", o->out, "The recording's file (JSON)")
      ->required()
      ->check(written_option("a file name"));
  cmd->add_option("--arch", o->arch,
                  "The preset it stands for (default: the preset of this GPU's SMs and compute "
                  "capability)")
      ->check(written_option("a preset id, e.g. h200"));
  cmd->add_flag("--force", o->force, "Replace --out if it exists");
  cmd->add_flag("--lessons", o->lessons,
                "Also every launch the bundled lessons' steps make (their parameters and blocks, "
                "and each solution's)");
  cmd->callback([o] { run_record(*o); });
}

} // namespace wl
