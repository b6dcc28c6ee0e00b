#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "base/text_file.h"
#include "base/text_format.h"
#include "cli_commands.h"
#include "cli_numbers.h"
#include "front_end/script.h"
#include "front_end/viz_main.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "lesson/lesson_exercise.h"
#include "lesson/lesson_judge.h"
#include "model/model_kernel.h"
#include "workflows/settings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#ifdef WARPLENS_LINKS_ENGINE
#include "engine/device.h"
#include "engine/engine.h"
#endif

namespace wl {

namespace {

// A lesson without a problem, or its first problem (in the file's order) as the error.
Lesson sound_lesson(const std::string& name, const std::vector<Arch>& presets) {
  CheckedLessonFile checked = check_lesson_file(find_lesson(name), presets);
  if (!checked.problems.empty())
    throw UsageError(checked.problems.front() + " (warplens lesson check " + name +
                     " names them all)");
  return std::move(*checked.lesson);
}

// Each file read and every step played with the models; its problems, one line each, or what it
// holds. Any problem in any file: exit 2, as bad input is.
void check_lessons(const std::vector<std::string>& files, bool answers) {
  const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
  int problems = 0;
  for (const std::string& file : files) {
    const CheckedLessonFile checked = check_lesson_file(find_lesson(file), presets);
    for (const std::string& problem : checked.problems)
      std::cerr << problem << "\n";
    problems += static_cast<int>(checked.problems.size());
    if (!checked.lesson) // it has problems
      continue;
    const Lesson& lesson = *checked.lesson;
    if (answers)
      for (const std::string& answer : lesson_answers(lesson, presets))
        std::printf("%s\n", answer.c_str());
    const auto exercises = std::count_if(lesson.steps.begin(), lesson.steps.end(),
                                         [](const LessonStep& step) { return step.exercise; });
    std::printf("%s: \"%s\", %s, %s; every launch, figure, site and condition checked with "
                "the models%s\n",
                lesson.file.c_str(), clip(lesson.title, 60).c_str(),
                counted(lesson.steps.size(), "step").c_str(),
                counted(static_cast<std::size_t>(lesson.questions()), "question").c_str(),
                exercises == 0 ? ""
                               : ("; each exercise's template misses its goal and its solution "
                                  "meets it (" +
                                  counted(static_cast<std::size_t>(exercises), "exercise") + ")")
                                     .c_str());
  }
  if (problems > 0)
    throw UsageError(counted(problems, "problem") + " in " + counted(files.size(), "lesson file") +
                     (problems == 1 ? "; it is named above with its line"
                                    : "; each is named above with its line"));
}

#ifdef WARPLENS_LINKS_ENGINE
// Every question asked again of this GPU's figures: each step's launch run with its counters and
// per-site pass. A question whose models' answer does not hold with the measured figures is named
// (exit 1), unless the lesson says why in a `say` or `why` line of that step.
void check_lessons_measured(const std::vector<std::string>& files) {
  const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
  EngineOptions engine;
  engine.metrics = "all"; // a lesson may ask any counter's figure (global_load_requests ...)
  engine.per_site = true;
  engine.timing.max_seconds = 0.05;
  const auto measure = [&](const StepLaunch& launch) { return run_kernel(launch.request, engine); };
  int questions = 0, differ = 0;
  for (const std::string& file : files) {
    const Lesson lesson = sound_lesson(file, presets);
    for (const MeasuredAnswer& a : answers_measured(lesson, presets, measure)) {
      ++questions;
      differ += a.holds ? 0 : 1;
      std::printf("%s:%d: %s: %s | models: %s | measured: %s\n", lesson.file.c_str(), a.line,
                  a.holds ? "holds" : "DIFFERS", clip(a.ask, 70).c_str(), a.modelled.c_str(),
                  a.measured.c_str());
    }
  }
  std::printf("%d questions asked of measured figures: %d hold, %d differ\n", questions,
              questions - differ, differ);
  if (differ > 0)
    throw VerificationFailure(counted(differ, "answer") +
                              " of the models do not hold on this GPU; each is "
                              "named above");
}
#endif

// A step's pictures, without their extension: "01" for a step that asks nothing, else
// "01-question" and "01-answer".
std::vector<std::string> step_pictures(const Lesson& lesson, std::size_t i) {
  const std::string stem = format("%02zu", i + 1);
  if (lesson.steps[i].kind == QuestionKind::none)
    return {stem};
  return {stem + "-question", stem + "-answer"};
}

// A lesson as slides: a script of the scripted sessions (written beside the pictures, so a teacher
// can replay or edit it) that walks every step and saves its question, then its answer, each with
// its JSON sidecar; played headless with the models (and the recording's figures where it has
// the launch).
std::string slides_script(const Lesson& lesson, const std::filesystem::path& dir,
                          const std::string& size) {
  std::string script = "# " + lesson.title + ": one picture per step, two where it asks\n";
  script += "window " + size + "\n";
  for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
    const LessonStep& step = lesson.steps[i];
    script += "# step " + std::to_string(i + 1) + ": " + step.title + "\nwait\n";
    const std::vector<std::string> pictures = step_pictures(lesson, i);
    script += "screenshot \"" + (dir / (pictures.front() + ".png")).string() + "\"\n";
    if (pictures.size() == 2) {
      script += std::string("click \"") +
                (step.kind == QuestionKind::until ? "Show a solution" : "Show the answer") +
                "\" in \"Lessons\"\nwait\n";
      script += "screenshot \"" + (dir / (pictures.back() + ".png")).string() + "\"\n";
    }
    if (i + 1 < lesson.steps.size())
      script += "click \"Next step >\" in \"Lessons\"\n";
  }
  return script;
}

// What the export would write over, in the order it writes: its script, each picture and its
// sidecar, and, for a lesson with exercises, the folder of their copies (the folder above it
// must be no link: a teacher's copies through it would go on the slides in place of the
// templates). Refused before anything is made, so two lessons never mix in one folder.
void check_slides_folder_free(const Lesson& lesson, const std::filesystem::path& script,
                              const std::filesystem::path& out,
                              const std::filesystem::path& copies) {
  std::vector<std::filesystem::path> taken = {script};
  for (std::size_t i = 0; i < lesson.steps.size(); ++i)
    for (const std::string& picture : step_pictures(lesson, i))
      for (const char* extension : {".png", ".json"})
        taken.push_back(out / (picture + extension));
  if (!copies.empty()) {
    taken.push_back(copies);
    std::error_code error;
    if (std::filesystem::is_symlink(copies.parent_path(), error))
      taken.push_back(copies.parent_path());
  }
  for (const std::filesystem::path& file : taken) {
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::symlink_status(file, error)))
      throw UsageError("'" + file.string() +
                       "' is there already; give another --out folder or move it (nothing is "
                       "replaced)");
  }
}

void export_lesson(const std::string& name, const std::string& out, const std::string& size) {
  const std::filesystem::path file = find_lesson(name);
  const Lesson lesson = sound_lesson(name, load_arch_presets(assets_dir() / "arch"));
  viz::parse_script("window " + size, "--window"); // refused as the script would refuse it
  std::error_code error;
  if (std::filesystem::exists(out, error) && !std::filesystem::is_directory(out, error))
    throw UsageError("--out '" + clip(out, 60) +
                     "' is not a folder; give a folder for the "
                     "pictures");
  std::filesystem::create_directories(out, error);
  if (error)
    throw UsageError("--out '" + clip(out, 60) + "': cannot make the folder (" + error.message() +
                     ")");
  const std::filesystem::path script = std::filesystem::path(out) / (file.stem().string() + ".txt");
  // The slides show each exercise's template as a learner first meets it, copied into a folder
  // made now beside them: never the teacher's own copies (WARPLENS_EXERCISES), which may be
  // half-solved or broken.
  const bool has_exercises = std::any_of(lesson.steps.begin(), lesson.steps.end(),
                                         [](const LessonStep& step) { return step.exercise; });
  const std::filesystem::path exercises = std::filesystem::absolute(out, error) / "exercises";
  const std::filesystem::path copies = exercises / file.stem(); // as exercise_copy names it
  check_slides_folder_free(lesson, script, out, has_exercises ? copies : std::filesystem::path());
  if (has_exercises && !std::filesystem::create_directories(copies, error))
    throw UsageError("--out '" + clip(out, 60) + "': cannot make " + copies.string() + " (" +
                     error.message() + ")");
  // Written as every output is: never through a link, nothing half-written, the failure said.
  if (const std::string problem = write_file_safely(script, slides_script(lesson, out, size), {});
      !problem.empty())
    throw UsageError(problem);
  viz::GuiOptions options;
  options.headless = true;
  options.model_only = true;
  options.lesson = file.string();
  options.script = script.string();
  options.exercises_dir = exercises;
  if (const int code = viz::run_gui_command(options); code != 0)
    throw UsageError("the slides' script stopped (" + script.string() + " is kept)");
  std::printf("%s: %zu steps as pictures in %s (the script that made them: %s)\n",
              lesson.file.c_str(), lesson.steps.size(), out.c_str(), script.string().c_str());
}

// The folder of the GUI's settings.json: the one given, else the GUI's own. `must_hold_it`: a
// folder given must hold a settings.json (a report of one that has none would read as a learner
// who did nothing).
std::filesystem::path settings_folder(const std::string& given, bool must_hold_it) {
  const std::filesystem::path dir =
      given.empty() ? viz::default_config_dir() : std::filesystem::path(given);
  if (dir.empty())
    throw UsageError("no settings folder: set HOME (or XDG_CONFIG_HOME), or give --settings DIR");
  const std::string named = given.empty() ? "the settings folder " + dir.string()
                                          : "--settings '" + clip(given, 80) + "'";
  std::error_code error;
  const bool folder = std::filesystem::is_directory(dir, error);
  if (!folder && (!given.empty() || std::filesystem::exists(dir)))
    throw UsageError(named + " is not a folder (" +
                     (error ? error.message() : std::string("a file")) +
                     "); give the folder that holds the GUI's settings.json");
  if (must_hold_it && !given.empty() &&
      !std::filesystem::exists(std::filesystem::symlink_status(dir / "settings.json", error)))
    throw UsageError(named + " holds no settings.json; give the folder the GUI keeps it in ("
                             "$XDG_CONFIG_HOME/warplens, else ~/.config/warplens)");
  return dir;
}

// Whether two kernel files ("x.cu" or "x.cu:kernel") hold the same text; false where one cannot
// be read.
bool same_text(const std::string& a, const std::string& b) {
  const RegularFileRead one = read_regular_file(kernel_file_path(a), kLargestKernelFile);
  const RegularFileRead other = read_regular_file(kernel_file_path(b), kLargestKernelFile);
  return one.problem == RegularFileRead::Problem::none &&
         other.problem == RegularFileRead::Problem::none && one.text == other.text;
}

struct JudgedExercise {
  LessonVerdict verdict;
  std::string measured_on; // the GPU that ran the copy; "" for the models
};

// One exercise step's copy judged now: modelled, or run on this GPU with its outputs checked.
JudgedExercise judge_exercise(const Lesson& lesson, const LessonStep& step,
                              const std::vector<Arch>& presets, bool measured) {
  const StepLaunch launch = step_launch(lesson, step, presets);
  const auto model_with = [&](const Params& params) {
    return model_kernel(KernelRequest{launch.request.kernel, params, launch.request.block},
                        launch.arch);
  };
  if (!measured)
    return {judge_launch(step, model_kernel(launch.request, launch.arch), model_with), ""};
#ifdef WARPLENS_LINKS_ENGINE
  EngineOptions engine;
  engine.per_site = true; // a goal on every site of a kind is judged by measured sites
  engine.timing.max_seconds = 0.05;
  const RunResult run = run_kernel(launch.request, engine);
  return {judge_launch(step, run, model_with), measuring_gpu(run)};
#else
  needs_engine("warplens lesson try --measured", "warplens lesson try");
#endif
}

// Saves what `lesson try` judged where the report reads it: "" where it was saved (or nothing
// was tried), else why not.
std::string save_tries(const std::string& settings, const std::string& lesson,
                       const std::map<int, viz::JudgedTry>& tries) {
  if (tries.empty())
    return "";
  std::string problem;
  std::filesystem::path dir;
  try {
    dir = settings_folder(settings, false);
    problem = viz::record_lesson_progress(dir, viz::lesson_id(find_lesson(lesson)), tries);
  } catch (const UsageError& e) {
    problem = std::string(e.what()) + "; progress not saved";
  }
  if (problem.empty())
    std::printf("progress saved in %s (warplens lesson report)\n", (dir / "settings.json").c_str());
  return problem;
}

// The learner's exercises judged as they stand: each exercise step's copy (made from its
// template the first time, never replaced) against its goal. Exit 1 while one is not met.
void try_exercises(const std::string& name, int only_step, bool measured,
                   const std::string& settings) {
  if (!settings.empty()) // a folder given is checked before anything is judged
    static_cast<void>(settings_folder(settings, false));
  const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
  const Lesson as_written = sound_lesson(name, presets);
  const Lesson lesson = learner_lesson(as_written);
  const int steps = static_cast<int>(lesson.steps.size());
  if (only_step > steps || (only_step > 0 && !lesson.steps[only_step - 1].exercise))
    throw UsageError("--step " + std::to_string(only_step) + ": " +
                     (only_step > steps ? lesson.file + " has " + counted(steps, "step")
                                        : "step " + std::to_string(only_step) + " of " +
                                              lesson.file + " is no exercise"));
#ifdef WARPLENS_LINKS_ENGINE
  // No GPU is said once, before any copy is judged: the copies are not missed for it.
  if (measured)
    try {
      static_cast<void>(arch_from_device(0));
    } catch (const UsageError& e) {
      const std::string why = e.what();
      throw UsageError("--measured: " + why.substr(0, why.find("; ")) +
                       "; without --measured "
                       "the models judge the copies");
    }
#endif
  int judged = 0, met = 0;
  std::map<int, viz::JudgedTry> tries; // for the progress a teacher's report reads
  for (int i = 0; i < steps; ++i) {
    const LessonStep& step = lesson.steps[i];
    if (!step.exercise || (only_step > 0 && i + 1 != only_step))
      continue;
    ++judged;
    // The copy's path comes from WARPLENS_EXERCISES: its control characters are not written out.
    std::printf("step %d, %s: your copy is %s\n", i + 1, step.title.c_str(),
                clip(step.kernel, 500).c_str());
    try {
      const JudgedExercise judged_now = judge_exercise(lesson, step, presets, measured);
      met += judged_now.verdict.right ? 1 : 0;
      // A copy as its template made it is a look, not a try (as in the GUI, only a save counts).
      const bool look = same_text(step.kernel, as_written.steps[i].kernel);
      if (judged_now.verdict.right || !look)
        tries[i] = {judged_now.verdict.right, judged_now.measured_on};
      std::printf("  %s%s\n", judged_now.verdict.says.c_str(),
                  look && !judged_now.verdict.right
                      ? " (Your copy is as its template made it: a look, not a try.)"
                      : "");
    } catch (const UsageError& e) { // the copy does not compile or launch: its message
      std::printf("  Not yet: %s\n", e.what());
      // A miss where the learner wrote something; a copy that is no file to read (a FIFO, a
      // link to nothing) is not their try.
      if (read_regular_file(kernel_file_path(step.kernel), kLargestKernelFile).problem ==
              RegularFileRead::Problem::none &&
          !same_text(step.kernel, as_written.steps[i].kernel))
        tries[i] = {false, ""};
    } catch (const Error&) { // the GPU is unusable now (a fault): what was judged is kept
      if (const std::string problem = save_tries(settings, name, tries); !problem.empty())
        std::fprintf(stderr, "warplens: %s\n", problem.c_str());
      throw;
    }
  }
  if (judged == 0)
    throw UsageError(lesson.file + " has no exercise step (exercise TEMPLATE.cu)");
  std::printf("%d of %s met %s goal (%s)\n", met,
              counted(static_cast<std::size_t>(judged), "exercise").c_str(),
              judged == 1 ? "its" : "their",
              measured ? "measured on this GPU" : "the models' figures: --measured runs them");
  // The verdicts stand above; progress that could not be saved is the error a learner must see.
  if (const std::string problem = save_tries(settings, name, tries); !problem.empty())
    throw UsageError(problem);
  if (met < judged)
    throw VerificationFailure(counted(judged - met, "exercise") + " not met yet");
}

// One lesson as the report shows it: the lesson read (bundled by its name, a teacher's by its
// path), or why it cannot be.
struct ReportedLesson {
  std::string id;
  std::optional<Lesson> lesson;
  std::string missing;
  viz::LessonProgress progress;
};

std::vector<ReportedLesson> reported_lessons(const std::filesystem::path& settings) {
  std::map<std::string, viz::LessonProgress> progress = viz::read_lesson_progress(settings);
  std::vector<ReportedLesson> out;
  for (const std::filesystem::path& path : bundled_lessons()) {
    const std::string id = path.stem().string();
    out.push_back({id, load_lesson(path), "", progress[id]});
    progress.erase(id);
  }
  for (const auto& [id, p] : progress) { // a teacher's lesson files, by their paths
    ReportedLesson r{id, std::nullopt, "", p};
    try {
      r.lesson = load_lesson(id);
    } catch (const Error& e) {
      r.missing = e.what();
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string minutes(double seconds) { return format("%.0f min", seconds / 60); }

void print_report_text(const std::vector<ReportedLesson>& lessons) {
  std::printf("%-28s %9s %6s %10s %8s %8s  %s\n", "lesson", "questions", "right", "first try",
              "measured", "time", "title");
  for (const ReportedLesson& r : lessons) {
    if (!r.lesson) {
      std::printf("%-28s %s\n", clip(r.id, 25).c_str(), clip(r.missing, 100).c_str());
      continue;
    }
    std::set<int> measured;
    for (const auto& [step, gpu] : r.progress.right_measured)
      measured.insert(step);
    std::printf("%-28s %9d %6d %10d %8d %8s  %s\n", clip(r.id, 25).c_str(), r.lesson->questions(),
                r.lesson->answered_right(r.progress.done),
                r.lesson->answered_right(r.progress.first_try), r.lesson->answered_right(measured),
                minutes(r.progress.seconds).c_str(), clip(r.lesson->title, 60).c_str());
  }
}

// A row per question: what a teacher's spreadsheet sums.
// A report's CSV goes to a teacher's spreadsheet and holds what a learner's settings hold: a text
// a spreadsheet would run as a formula (=, +, -, @ first) starts with an apostrophe, which shows
// it as text.
std::string report_cell(const std::string& text) {
  const bool formula =
      !text.empty() && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos;
  return csv_quoted(formula ? "'" + text : text);
}

void print_report_csv(const std::vector<ReportedLesson>& lessons) {
  std::printf("lesson,lesson_title,step,question,answered_right,first_try,right_with_models,"
              "right_measured_on,lesson_seconds\n");
  for (const ReportedLesson& r : lessons) {
    if (!r.lesson) // a row per question needs the questions: said beside the CSV
      std::fprintf(stderr, "warplens: %s: left out: %s\n", clip(r.id, 80).c_str(),
                   clip(r.missing, 160).c_str());
    for (std::size_t i = 0; r.lesson && i < r.lesson->steps.size(); ++i) {
      const LessonStep& step = r.lesson->steps[i];
      if (step.kind == QuestionKind::none)
        continue;
      const int index = static_cast<int>(i);
      const auto measured = r.progress.right_measured.find(index);
      std::printf(
          "%s,%s,%zu,%s,%d,%d,%d,%s,%.0f\n", report_cell(r.id).c_str(),
          report_cell(r.lesson->title).c_str(), i + 1, report_cell(step.title).c_str(),
          r.progress.done.contains(index) ? 1 : 0, r.progress.first_try.contains(index) ? 1 : 0,
          r.progress.right_modelled.contains(index) ? 1 : 0,
          measured == r.progress.right_measured.end() ? "" : report_cell(measured->second).c_str(),
          r.progress.seconds);
    }
  }
}

void print_report_json(const std::vector<ReportedLesson>& lessons) {
  nlohmann::json out = nlohmann::json::array();
  for (const ReportedLesson& r : lessons) {
    nlohmann::json one = {{"lesson", r.id}, {"seconds", std::round(r.progress.seconds)}};
    if (!r.lesson) {
      one["missing"] = r.missing;
      out.push_back(one);
      continue;
    }
    one["title"] = r.lesson->title;
    one["questions"] = r.lesson->questions();
    one["answered_right"] = r.lesson->answered_right(r.progress.done);
    one["first_try"] = r.lesson->answered_right(r.progress.first_try);
    nlohmann::json steps = nlohmann::json::array();
    for (std::size_t i = 0; i < r.lesson->steps.size(); ++i)
      if (r.lesson->steps[i].kind != QuestionKind::none)
        steps.push_back(
            {{"step", i + 1},
             {"question", r.lesson->steps[i].title},
             {"answered_right", r.progress.done.contains(static_cast<int>(i))},
             {"first_try", r.progress.first_try.contains(static_cast<int>(i))},
             {"right_with_models", r.progress.right_modelled.contains(static_cast<int>(i))},
             {"right_measured_on", r.progress.right_measured.contains(static_cast<int>(i))
                                       ? r.progress.right_measured.at(static_cast<int>(i))
                                       : ""}});
    one["steps"] = steps;
    out.push_back(one);
  }
  std::printf("%s\n", nlohmann::json{{"lessons", out}}.dump(1).c_str());
}

// A learner's progress for the teacher, from the settings the GUI keeps.
void report_lessons(const std::string& settings, bool csv, bool json) {
  const std::filesystem::path dir = settings_folder(settings, true);
  std::error_code error;
  // A learner who has done nothing has no settings.json yet; a wrong HOME looks the same: said.
  // (One that cannot be looked at, EACCES, is for the reader to name.)
  if (std::filesystem::symlink_status(dir / "settings.json", error).type() ==
      std::filesystem::file_type::not_found)
    std::fprintf(stderr,
                 "warplens: no progress saved yet: %s does not exist (the GUI's window and "
                 "lesson try make it)\n",
                 clip((dir / "settings.json").string(), 300).c_str());
  const std::vector<ReportedLesson> lessons = reported_lessons(dir);
  if (csv)
    return print_report_csv(lessons);
  if (json)
    return print_report_json(lessons);
  print_report_text(lessons);
}

void list_lessons() {
  int questions = 0;
  for (const std::filesystem::path& path : bundled_lessons()) {
    const Lesson lesson = load_lesson(path);
    const std::string stem = path.stem().string();
    std::printf("%-24s %s (%s, %s)\n", stem.substr(stem.find('-') + 1).c_str(),
                lesson.title.c_str(), counted(lesson.steps.size(), "step").c_str(),
                counted(static_cast<std::size_t>(lesson.questions()), "question").c_str());
    questions += lesson.questions();
  }
  std::printf("%s in all; open one with: warplens --lesson NAME\n",
              counted(questions, "question").c_str());
}

} // namespace

void add_lesson_command(CLI::App& app) {
  CLI::App* lesson =
      app.add_subcommand("lesson", "The course's lessons: list them, or check a lesson file a "
                                   "teacher wrote (manual: docs/lessons.md)");
  lesson->require_subcommand(1);
  lesson->add_subcommand("list", "The bundled lessons in course order (manual: docs/lessons.md)")
      ->callback(list_lessons);
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* check = lesson->add_subcommand(
      "check",
      "Read lesson files and play every step with the models: each problem named with "
      "its line (exit 2), else what each holds (the format: docs/lessons.md, For teachers)");
  check->add_option("file", *files, "Lesson files (.lesson), or bundled lessons' names")
      ->required();
  auto answers = std::make_shared<bool>(false);
  check->add_flag("--answers", *answers,
                  "Also print each question's answer as the models give it (for the teacher)");
  auto measured = std::make_shared<bool>(false);
  check->add_flag("--measured", *measured,
                  "Ask every question again of this GPU's figures (each step's launch run with "
                  "counters and the per-site pass): exit 1 where the models' answer does not hold");
  check->callback([files, answers, measured] {
    if (!*measured)
      return check_lessons(*files, *answers);
#ifdef WARPLENS_LINKS_ENGINE
    check_lessons_measured(*files);
#else
    needs_engine("warplens lesson check --measured", "warplens lesson check");
#endif
  });

  auto tried = std::make_shared<std::string>();
  auto step = std::make_shared<int>(0);
  auto try_measured = std::make_shared<bool>(false);
  CLI::App* try_cmd = lesson->add_subcommand(
      "try", "Judge your copies of a lesson's exercises against their goals (each copy made "
             "from its template the first time; manual: docs/lessons.md): exit 1 while one is "
             "not met");
  try_cmd->add_option("lesson", *tried, "A bundled lesson's name or a .lesson file")->required();
  try_cmd->add_option("--step", *step, "Only this step (counted from 1)")
      ->check(whole_number_option(1, static_cast<std::int64_t>(kMostLessonSteps)));
  try_cmd->add_flag("--measured", *try_measured,
                    "Run each copy on this GPU, its outputs checked, rather than model it");
  auto settings = std::make_shared<std::string>();
  try_cmd
      ->add_option("--settings", *settings,
                   "The folder of the GUI's settings.json, where each goal met is saved as the "
                   "GUI saves it (default $XDG_CONFIG_HOME/warplens, else ~/.config/warplens)")
      ->check(written_option("a folder"));
  try_cmd->callback([tried, step, try_measured, settings] {
    try_exercises(*tried, *step, *try_measured, *settings);
  });

  auto report_csv = std::make_shared<bool>(false);
  auto report_json = std::make_shared<bool>(false);
  CLI::App* report = lesson->add_subcommand(
      "report", "A learner's progress for the teacher: each lesson's questions answered right, at "
                "the first try, and the time it was open (from the GUI's settings)");
  report
      ->add_option("--settings", *settings,
                   "The folder of the GUI's settings.json (default $XDG_CONFIG_HOME/warplens, "
                   "else ~/.config/warplens)")
      ->check(written_option("a folder"));
  CLI::Option* as_csv = report->add_flag("--csv", *report_csv, "A CSV row per question");
  report->add_flag("--json", *report_json, "One JSON object")->excludes(as_csv);
  report->callback([settings, report_csv, report_json] {
    report_lessons(*settings, *report_csv, *report_json);
  });

  auto name = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto size = std::make_shared<std::string>("1920x1080");
  CLI::App* slides = lesson->add_subcommand(
      "export", "A lesson as slides: each step's question and answer as PNGs with their JSON "
                "sidecars, made by a script of the scripted sessions written beside them (manual: "
                "docs/lessons.md)");
  slides->add_option("lesson", *name, "A bundled lesson's name or a .lesson file")->required();
  slides->add_option("--out", *out, "The folder for the pictures (made if missing)")->required();
  slides->add_option(
      "--window", *size,
      "The pictures' size, WIDTHxHEIGHT (default 1920x1080: a slide's, with room for the maps)");
  slides->callback([name, out, size] { export_lesson(*name, *out, *size); });
}

} // namespace wl
