// The course: every bundled lesson reads and checks clean, and every question is played with the
// models, answered right (the answer read from the figure table) and wrong, with its verdict; a
// lesson a teacher gets wrong is refused with its file and line, one line per problem.

#include "base/error.h"
#include "base/text_file.h"
#include "base/text_format.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "lesson/lesson_exercise.h"
#include "lesson/lesson_judge.h"
#include "model/block_text.h"
#include "model/model_kernel.h"
#include "test_support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

namespace wl {
namespace {

const std::vector<Arch>& presets() {
  static const std::vector<Arch> all = load_arch_presets(assets_dir() / "arch");
  return all;
}

RunResult modelled(const Lesson& lesson, const LessonStep& step, bool with_solution = false) {
  const StepLaunch launch = step_launch(lesson, step, presets(), with_solution);
  return model_kernel(launch.request, launch.arch);
}

// A lesson whose steps are kernel files (the exercises) is compiled by NVRTC: a build without the
// CUDA toolkit says so for each, and checks the rest.
bool needs_nvrtc(const Lesson& lesson) {
  return std::any_of(lesson.steps.begin(), lesson.steps.end(),
                     [](const LessonStep& step) { return names_a_kernel_file(step.kernel); });
}

TEST(Lessons, TheCourseHasTenLessonsAndFortyQuestionsThatCheckClean) {
  int lessons = 0, questions = 0;
  for (const auto& path : bundled_lessons()) {
    const Lesson lesson = load_lesson(path);
    if (!test::kBuildHasEngine && needs_nvrtc(lesson)) {
      const std::vector<std::string> problems = check_lesson(lesson, presets());
      ASSERT_FALSE(problems.empty()) << path;
      EXPECT_TRUE(test::contains(problems.front(), "built without the CUDA toolkit"))
          << problems.front();
      continue;
    }
    EXPECT_EQ(check_lesson(lesson, presets()), std::vector<std::string>{}) << path;
    ++lessons;
    questions += lesson.questions();
  }
  EXPECT_GE(lessons, 10);
  EXPECT_GE(questions, 40);
}

// A number typed as the figure is right; twice it plus one is wrong and offers the hint.
void play_number(const LessonStep& step, const std::optional<FigureReading>& truth,
                 const std::function<LessonVerdict(const std::string&)>& judge) {
  ASSERT_TRUE(truth) << step.ask;
  const LessonVerdict right = judge(format("%.17g", truth->value));
  EXPECT_TRUE(right.right) << step.ask << ": " << right.says;
  EXPECT_TRUE(test::contains(right.says, truth->text)) << right.says;
  const LessonVerdict wrong = judge(format("%.17g", truth->value * 2 + 1));
  EXPECT_FALSE(wrong.right) << step.ask;
  if (!step.hint.empty()) {
    EXPECT_TRUE(test::contains(wrong.says, step.hint)) << wrong.says;
  }
}

void play_launch_step(const Lesson& lesson, const LessonStep& step) {
  const RunResult result = modelled(lesson, step);
  if (step.until_line) {
    const StepLaunch launch = step_launch(lesson, step, presets());
    const auto model_with = [&](const Params& params) {
      KernelRequest request = launch.request;
      request.params = params;
      return model_kernel(request, launch.arch);
    };
    EXPECT_FALSE(judge_launch(step, result, model_with).right) << step.ask;
    const LessonVerdict solved = judge_launch(step, modelled(lesson, step, true), model_with);
    EXPECT_TRUE(solved.right) << step.ask << ": " << solved.says;
    return;
  }
  if (step.answer.key == "limiter") {
    const std::vector<std::string> limiters = limiter_names(result);
    for (const std::string& choice : step.choices) {
      const bool limits = std::find(limiters.begin(), limiters.end(), choice) != limiters.end();
      const LessonVerdict verdict = judge_answer(step, choice, result);
      EXPECT_EQ(verdict.right, limits) << step.ask << ": " << choice;
      // A wrong choice is named in the words it was shown in ("shared memory").
      if (!limits) {
        EXPECT_TRUE(verdict.says.starts_with("Not " + choice_in_words(choice) + "."))
            << verdict.says;
      }
    }
    return;
  }
  play_number(step, read_figure(step.answer, result),
              [&](const std::string& typed) { return judge_answer(step, typed, result); });
}

void play_playground_step(const LessonStep& step) {
  if (step.until_line) {
    EXPECT_FALSE(judge_playground(step, step_playground(step)).right) << step.ask;
    const LessonVerdict solved = judge_playground(step, step_playground(step, true));
    EXPECT_TRUE(solved.right) << step.ask << ": " << solved.says;
    return;
  }
  const IndexPlayground start = step_playground(step);
  play_number(step, read_playground_figure(step.answer.key, start), [&](const std::string& typed) {
    return judge_playground_answer(step, typed, start);
  });
}

TEST(Lessons, EveryQuestionAnsweredRightAndWrongGetsItsVerdict) {
  int played = 0;
  for (const auto& path : bundled_lessons()) {
    const Lesson lesson = load_lesson(path);
    if (!test::kBuildHasEngine && needs_nvrtc(lesson))
      continue; // its files compile with NVRTC alone
    for (const LessonStep& step : lesson.steps) {
      if (step.ask.empty())
        continue;
      SCOPED_TRACE(lesson.file + ":" + std::to_string(step.ask_line));
      if (step.playground)
        play_playground_step(step);
      else
        play_launch_step(lesson, step);
      ++played;
    }
  }
  EXPECT_GE(played, 40);
}

// The manual's "For teachers" lesson (docs/lessons.md), as a teacher would copy it, checks clean.
TEST(Lessons, TheManualsLessonForTeachersChecksClean) {
  std::ifstream chapter(std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "docs" /
                        "lessons.md");
  const std::string text((std::istreambuf_iterator<char>(chapter)), {});
  const std::size_t start = text.find("lesson Padding a shared tile");
  ASSERT_NE(start, std::string::npos) << "docs/lessons.md has no lesson for teachers";
  const std::string lesson_text = text.substr(start, text.find("```", start) - start);
  const Lesson lesson = parse_lesson(lesson_text, "lessons.md");
  EXPECT_EQ(lesson.steps.size(), 3u);
  EXPECT_EQ(check_lesson(lesson, presets()), std::vector<std::string>{});
}

// A teacher's lesson may ask about a line of a kernel file beside it (a path from the lesson's
// folder): the transpose example with its tile unpadded reads 32 wavefronts on line 34, and its
// PAD tunable, set to the least that ends the conflict, is judged from the file's own model.
TEST(Lessons, AStepOnAKernelFileBesideTheLessonAsksAboutItsLine) {
  WL_SKIP_WITHOUT_ENGINE(); // NVRTC compiles the file
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "wl-lesson-file";
  std::filesystem::create_directories(dir);
  std::ifstream example(std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" /
                        "transpose.cu");
  const std::string text((std::istreambuf_iterator<char>(example)), {});
  std::ofstream(dir / "transpose.cu") << text;
  const Lesson lesson = parse_lesson(
      "lesson Your own tile\nabout A tile of your own.\n\nstep Its read\nkernel transpose.cu\n"
      "param PAD=0\nshow shared\nask How many wavefronts does one request of line 34 take?\n"
      "answer wavefronts_per_request of \"line 34: shared load, 4 B\"\nwhy One bank.\n\n"
      "step Its padding\nkernel transpose.cu:transpose\nparam PAD=0\nshow shared\n"
      "ask Pad the tile until its read is conflict-free.\n"
      "until wavefronts_per_request of \"line 34: shared load, 4 B\" = 1\nleast PAD\n"
      "solution param PAD=1\nwhy Rows of 33 words.\n",
      (dir / "own.lesson").string());
  EXPECT_EQ(lesson.steps[0].kernel, (dir / "transpose.cu").string());
  EXPECT_EQ(parse_lesson("lesson L\nabout A.\n\nstep S\nkernel \"my tile.cu\"\nshow shared\n",
                         (dir / "own.lesson").string())
                .steps[0]
                .kernel,
            (dir / "my tile.cu").string())
      << "a path with a space, in quotes";
  EXPECT_EQ(check_lesson(lesson, presets()), std::vector<std::string>{});
  const RunResult first = modelled(lesson, lesson.steps[0]);
  EXPECT_EQ(first.kernel_id, "transpose/transpose");
  EXPECT_TRUE(judge_answer(lesson.steps[0], "32", first).right);
  EXPECT_FALSE(judge_answer(lesson.steps[0], "1", first).right);
  std::filesystem::remove_all(dir);
}

// The defect: a settings file whose progress named 30 steps of a 6-question lesson showed "30/6
// done". Only the steps that are the lesson's questions count.
// An exercise's copy: made in the learner's folder from the template the first time, then theirs:
// never replaced, whatever the template says later; a folder in its place is named.
TEST(Lessons, AnExercisesCopyIsMadeOnceAndNeverReplaced) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl_exercise_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "course");
  std::ofstream(dir / "course" / "copy.cu") << "// the template\n";
  ::setenv("WARPLENS_EXERCISES", (dir / "mine").c_str(), 1);
  const Lesson lesson =
      parse_lesson("lesson L\nstep S\nexercise copy.cu\nask q\nuntil registers <= 32\n"
                   "solution file solved.cu\n",
                   (dir / "course" / "12-mine.lesson").string());
  const std::filesystem::path copy = dir / "mine" / "12-mine" / "copy.cu";
  EXPECT_EQ(learner_lesson(lesson).steps[0].kernel, copy.string());
  EXPECT_EQ(read_text_file(copy, "copy", "a kernel file", 1024), "// the template\n");
  std::ofstream(copy) << "// the learner's edit\n";
  std::ofstream(dir / "course" / "copy.cu") << "// the template, changed\n";
  learner_lesson(lesson);
  EXPECT_EQ(read_text_file(copy, "copy", "a kernel file", 1024), "// the learner's edit\n");
  std::filesystem::remove(copy);
  std::filesystem::create_directories(copy);
  try {
    learner_lesson(lesson);
    ADD_FAILURE() << "a folder taken as the copy";
  } catch (const UsageError& e) {
    EXPECT_TRUE(test::contains(e.what(), copy.string() + ", is a folder")) << e.what();
  }
  // A relative WARPLENS_EXERCISES names no one folder (relative to where?): refused by name.
  ::setenv("WARPLENS_EXERCISES", "relative/path", 1);
  try {
    exercises_folder();
    ADD_FAILURE() << "a relative WARPLENS_EXERCISES taken";
  } catch (const UsageError& e) {
    EXPECT_TRUE(test::contains(e.what(), "WARPLENS_EXERCISES='relative/path' is not an absolute"))
        << e.what();
  }
  // A lesson file named "...lesson" would put its copies in "..", outside the exercises' folder.
  ::setenv("WARPLENS_EXERCISES", (dir / "mine").c_str(), 1);
  for (const char* name : {"...lesson", "..lesson"}) {
    const Lesson outside =
        parse_lesson("lesson L\nstep S\nexercise copy.cu\nask q\nuntil registers <= 32\n"
                     "solution file solved.cu\n",
                     (dir / "course" / name).string());
    try {
      learner_lesson(outside);
      ADD_FAILURE() << name << " made copies";
    } catch (const UsageError& e) {
      EXPECT_TRUE(test::contains(e.what(), "names no folder for its exercises' copies"))
          << e.what();
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "copy.cu"));
  ::unsetenv("WARPLENS_EXERCISES");
  std::filesystem::remove_all(dir);
}

// A learner's settings reach the teacher's CSV: a text a spreadsheet would run as a formula
// (a GPU's name "=cmd|' /C calc'!A1") is written as text.
TEST(Lessons, AReportsCsvNeverHoldsAFormula) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl_formula_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "settings.json")
      << R"({"lessons": {"03-coalescing": {"step": 0, "done": [0], )"
      << R"("right_measured": {"0": "=cmd|calc!A1"}}}})";
  const test::CommandResult csv =
      test::run_warplens("lesson report --csv --settings " + dir.string());
  EXPECT_EQ(csv.exit_code, 0) << csv.out;
  EXPECT_TRUE(test::contains(csv.out, ",\"Stride 1\",1,0,0,\"'=cmd|calc!A1\",")) << csv.out;
  std::filesystem::remove_all(dir);
}

// The teacher's report of a learner's progress, from the GUI's settings: a row per question with
// its first try and the lesson's time; settings the GUI could not have written are refused in one
// line naming the key.
TEST(Lessons, TheReportGivesEachQuestionsResultAndTheLessonsTime) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl_report_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "settings.json")
      << R"({"lessons": {"03-coalescing": {"step": 2, "done": [0, 1], "first_try": [1], )"
      << R"("seconds": 600}}})";
  const test::CommandResult csv =
      test::run_warplens("lesson report --csv --settings " + dir.string());
  ASSERT_EQ(csv.exit_code, 0) << csv.out;
  EXPECT_TRUE(test::contains(csv.out, "lesson,lesson_title,step,question,answered_right,first_try,"
                                      "right_with_models,right_measured_on,lesson_seconds\n"))
      << csv.out;
  EXPECT_TRUE(test::contains(csv.out, "\"03-coalescing\",\"Coalescing: how a warp's addresses "
                                      "become sectors\",1,\"Stride 1\",1,0,0,,600\n"))
      << csv.out;
  EXPECT_TRUE(test::contains(csv.out, ",2,\"Stride 2\",1,1,0,,600\n")) << csv.out;
  const test::CommandResult text = test::run_warplens("lesson report --settings " + dir.string());
  EXPECT_TRUE(test::contains(text.out, "03-coalescing                        6      2          1   "
                                       "     0   10 min"))
      << text.out;
  // Each names the key that cannot be used and what it allows.
  for (const auto& [bad, said] : std::vector<std::pair<std::string, std::string>>{
           {R"("seconds": -5)", "lessons.03-coalescing.seconds -5: allowed the seconds"},
           {R"("seconds": "ten")", "lessons.03-coalescing.seconds \"ten\": allowed"},
           {R"("done": 3)", "lessons.03-coalescing.done 3: allowed a list of step numbers"},
           {R"("right_measured": {"0": ""})", "lessons.03-coalescing.right_measured.0 \"\""}}) {
    std::ofstream(dir / "settings.json")
        << R"({"lessons": {"03-coalescing": {"step": 2, )" << bad << "}}}";
    test::expect_one_line_error("lesson report --settings " + dir.string(),
                                {"settings.json", said});
  }
  // No settings.json where the GUI keeps it (nothing done yet, or a wrong HOME): said, zeros.
  std::filesystem::create_directories(dir / "empty");
  const test::CommandResult none =
      test::run_warplens("lesson report", "XDG_CONFIG_HOME=" + (dir / "empty").string() + " ");
  EXPECT_EQ(none.exit_code, 0) << none.out;
  EXPECT_TRUE(test::contains(none.out, "no progress saved yet: " +
                                           (dir / "empty" / "warplens" / "settings.json").string()))
      << none.out;
  std::ofstream(dir / "settings.json") << R"({"lessons": {"03-coalescing": {"done": [0]}}})";
  test::expect_one_line_error("lesson report --settings " + dir.string(),
                              {"lessons.03-coalescing.step null: allowed the step open"});
  std::ofstream(dir / "settings.json") << R"({"lessons": {"x": {"step": 0, "seconds": 1e999}}})";
  test::expect_one_line_error("lesson report --settings " + dir.string(),
                              {"settings.json", "1e999"});
  test::expect_one_line_error("lesson report --settings ''", {"--settings", "an empty value"});
  test::expect_one_line_error("lesson report --settings " + (dir / "settings.json").string(),
                              {"is not a folder"});
  // Settings that are there and cannot be used are said, never read as a learner who did nothing.
  std::ofstream(dir / "settings.json") << "[1]";
  test::expect_one_line_error("lesson report --settings " + dir.string(),
                              {"settings.json", "allowed an object of settings"});
  std::filesystem::remove(dir / "settings.json");
  test::expect_one_line_error("lesson report --settings " + dir.string(),
                              {"holds no settings.json"});
  std::filesystem::create_symlink(dir / "gone.json", dir / "settings.json");
  test::expect_one_line_error("lesson report --settings " + dir.string(),
                              {"settings.json is a link to", "gone.json", "which is not there"});
  std::filesystem::remove_all(dir);
}

// `lesson try` saves each judgement where the report reads it, as the GUI's checks are: a copy as
// its template made it is a look, an edit is a try, a goal met with no earlier miss is met at the
// first try, and the figures' source is kept (the models here; a GPU's name with --measured).
TEST(Lessons, LessonTrySavesEachJudgementForTheReport) {
  WL_SKIP_WITHOUT_ENGINE(); // the exercises compile their kernel files with NVRTC
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl_try_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "settings");
  const std::string env = "WARPLENS_EXERCISES=" + (dir / "mine").string() + " ";
  const std::string settings = " --settings " + (dir / "settings").string();
  const auto try_step = [&](int step) {
    return test::run_warplens("lesson try exercises --step " + std::to_string(step) + settings,
                              env);
  };
  EXPECT_EQ(try_step(1).exit_code, 1) << "the template misses its goal";
  EXPECT_FALSE(std::filesystem::exists(dir / "settings" / "settings.json")) << "a look, no try";
  const std::filesystem::path lessons = std::filesystem::path(WARPLENS_SOURCE_ASSETS) / "lessons";
  const std::filesystem::path copies = dir / "mine" / "11-exercises";
  std::ofstream(copies / "coalesce_copy.cu", std::ios::app) << "// an edit that changes nothing\n";
  EXPECT_EQ(try_step(1).exit_code, 1);
  std::filesystem::copy_file(lessons / "11-exercises" / "coalesce_copy_solved.cu",
                             copies / "coalesce_copy.cu",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(try_step(1).exit_code, 0);
  try_step(2); // the template: a look
  std::filesystem::copy_file(lessons / "11-exercises" / "pad_tile_solved.cu",
                             copies / "pad_tile.cu",
                             std::filesystem::copy_options::overwrite_existing);
  const test::CommandResult met = try_step(2);
  EXPECT_EQ(met.exit_code, 0) << met.out;
  EXPECT_TRUE(
      test::contains(met.out, "progress saved in " + (dir / "settings" / "settings.json").string()))
      << met.out;
  // Broken after it was met at its first try: a miss now, and still met at the first try.
  std::filesystem::copy_file(lessons / "11-exercises" / "pad_tile.cu", copies / "pad_tile.cu",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(copies / "pad_tile.cu", std::ios::app) << "// the tile unpadded again\n";
  EXPECT_EQ(try_step(2).exit_code, 1);
  const test::CommandResult csv = test::run_warplens("lesson report --csv" + settings);
  EXPECT_TRUE(test::contains(csv.out, ",1,\"Coalesce a strided copy\",1,0,1,,0\n")) << csv.out;
  EXPECT_TRUE(test::contains(csv.out, ",2,\"Pad a transpose's tile\",1,1,1,,0\n")) << csv.out;
  EXPECT_TRUE(test::contains(csv.out, ",3,\"Vectorise a copy\",0,0,0,,0\n")) << csv.out;
  // Settings the GUI could not have written are left as they are, and said.
  std::ofstream(dir / "settings" / "settings.json") << "{\"lessons\": 5}";
  const test::CommandResult refused = try_step(2);
  EXPECT_TRUE(test::contains(refused.out, "progress not saved")) << refused.out;
  EXPECT_TRUE(test::contains(refused.out, "Not yet")) << "the verdict stands: " << refused.out;
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_EQ(wl::read_text_file(dir / "settings" / "settings.json", "settings", "JSON", 1024),
            "{\"lessons\": 5}");
  std::filesystem::remove_all(dir);
}

// The defect: with no GPU, `lesson try --measured` judged each copy "Not yet: no GPU" and saved it
// as a miss, so the learner's later success was no first try. No GPU is one line, exit 2, before
// anything is judged or saved.
TEST(Lessons, LessonTryMeasuredWithNoGpuJudgesAndSavesNothing) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl_try_gpu_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "settings");
  const std::string env = "WARPLENS_EXERCISES=" + (dir / "mine").string() + " ";
  const std::string args =
      "lesson try exercises --step 1 --settings " + (dir / "settings").string();
  test::run_warplens(args, env); // makes the copy
  std::ofstream(dir / "mine" / "11-exercises" / "coalesce_copy.cu", std::ios::app) << "// edit\n";
  const test::CommandResult r = test::run_warplens(args + " --measured", env);
  if (r.exit_code == 2) { // no GPU here
    EXPECT_TRUE(test::contains(r.out, "--measured: no GPU")) << r.out;
    EXPECT_FALSE(test::contains(r.out, "Not yet")) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "settings" / "settings.json"));
  } else {
    EXPECT_FALSE(test::contains(r.out, "no GPU")) << r.out;
  }
  std::filesystem::remove_all(dir);
}

// The defect: a copy whose store address comes from the clock met "every global access <= 4"
// by its load alone; the store the model cannot follow now keeps the goal unmet, and says why.
TEST(Lessons, AGoalOnEveryAccessIsNotMetPastALineTheModelCannotFollow) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl_try_every_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string env = "WARPLENS_EXERCISES=" + (dir / "mine").string() + " ";
  const std::string args = "lesson try exercises --step 1 --settings " + dir.string();
  std::filesystem::create_directories(dir);
  test::run_warplens(args, env); // makes the copy
  const std::filesystem::path copy = dir / "mine" / "11-exercises" / "coalesce_copy.cu";
  std::string solved =
      wl::read_text_file(std::filesystem::path(WARPLENS_SOURCE_ASSETS) / "lessons" /
                             "11-exercises" / "coalesce_copy_solved.cu",
                         "solution", "a kernel file", 1 << 20);
  const std::size_t store = solved.find("out[i] = in[i];");
  ASSERT_NE(store, std::string::npos);
  std::ofstream(copy) << solved.replace(store, 15, "out[(int)clock() % n] = in[i];");
  const test::CommandResult r = test::run_warplens(args, env);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(test::contains(r.out, "is not predicted (the address depends on the GPU's clock"))
      << r.out;
  EXPECT_TRUE(test::contains(r.out, "so no figure says that every access meets the goal")) << r.out;
  std::filesystem::remove_all(dir);
}

// A goal that asks for checked outputs on a file that checks none could never be met on a GPU:
// lesson check says so at the line that names the file.
TEST(Lessons, AnExerciseThatAsksForCheckedOutputsOfAFileThatChecksNoneIsRefused) {
  WL_SKIP_WITHOUT_ENGINE(); // NVRTC compiles the files
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl_nocheck_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string kernel = "// @warplens kernel ones\n// @warplens size n = 4096\n"
                             "// @warplens arg out: out float[n]\n// @warplens arg n: int = n\n"
                             "// @warplens grid ceil_div(n, block.x)\n// @warplens check none\n"
                             "__global__ void ones(float* out, int n) {\n"
                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "  if (i < n) out[i * STRIDE] = 1;\n}\n";
  std::ofstream(dir / "ones.cu") << "#define STRIDE 2\n" << kernel;
  std::ofstream(dir / "ones_solved.cu") << "#define STRIDE 1\n" << kernel;
  const Lesson lesson =
      parse_lesson("lesson L\nstep S\nexercise ones.cu\nask q\n"
                   "until sectors_per_request of every global store <= 4 and verified\n"
                   "solution file ones_solved.cu\n",
                   (dir / "nocheck.lesson").string());
  const std::vector<std::string> problems = check_lesson(lesson, presets());
  ASSERT_FALSE(problems.empty());
  EXPECT_TRUE(test::contains(problems.front(), "nocheck.lesson:3: ones.cu says `check none`"))
      << problems.front();
  // A solution that runs another kernel than the template's: the learner's copy keeps its name.
  std::string renamed = kernel;
  renamed.replace(renamed.find("kernel ones"), 11, "kernel twos");
  renamed.replace(renamed.find("void ones"), 9, "void twos");
  std::ofstream(dir / "twos.cu") << "#define STRIDE 1\n" << renamed;
  const std::vector<std::string> renamed_problems =
      check_lesson(parse_lesson("lesson L\nstep S\nexercise ones.cu\nask q\n"
                                "until sectors_per_request of every global store <= 4\n"
                                "solution file twos.cu\n",
                                (dir / "renamed.lesson").string()),
                   presets());
  ASSERT_EQ(renamed_problems.size(), 1u);
  EXPECT_TRUE(test::contains(renamed_problems.front(),
                             "renamed.lesson:6: the solution runs kernel twos, the template ones"))
      << renamed_problems.front();
  std::filesystem::remove_all(dir);
}

TEST(Lessons, ProgressCountsOnlyTheLessonsOwnQuestions) {
  const Lesson lesson = load_lesson(find_lesson("coalescing"));
  std::set<int> done;
  for (int step = -3; step < 30; ++step)
    done.insert(step);
  EXPECT_EQ(lesson.answered_right(done), lesson.questions());
  EXPECT_EQ(lesson.answered_right({1, 1000}), 1);
  EXPECT_EQ(lesson.answered_right({}), 0);
}

TEST(Lessons, LeastMeansNoSmallerValueMeetsTheCondition) {
  const Lesson lesson = load_lesson(find_lesson("shared-memory-banks"));
  const auto step = std::find_if(lesson.steps.begin(), lesson.steps.end(),
                                 [](const LessonStep& s) { return !s.least.empty(); });
  ASSERT_NE(step, lesson.steps.end());
  const StepLaunch launch = step_launch(lesson, *step, presets());
  const auto with_pad = [&](std::int64_t pad) {
    KernelRequest request = launch.request;
    request.params["pad"] = pad;
    return model_kernel(request, launch.arch);
  };
  const auto model_with = [&](const Params& params) { return with_pad(params.at("pad")); };
  EXPECT_TRUE(judge_launch(*step, with_pad(1), model_with).right);
  const LessonVerdict too_much = judge_launch(*step, with_pad(3), model_with);
  EXPECT_FALSE(too_much.right);
  EXPECT_TRUE(test::contains(too_much.says, "a smaller pad would do too")) << too_much.says;
}

// What `warplens record mine.lesson` measures: each step's launch on a bundled kernel once, and
// each until step's solution; a playground measures nothing, and a kernel file is recorded by
// naming it.
TEST(Lessons, ALessonsLaunchesAreEachStepsAndEachSolutionOnce) {
  const Lesson lesson = parse_lesson("lesson L\n"
                                     "step A\nkernel vec_add/scalar\nblock 128\nshow global\n"
                                     "step B\nkernel vec_add/scalar\nblock 128\nshow occupancy\n"
                                     "step C\nkernel vec_add/scalar\nblock 32\n"
                                     "ask Change the block until occupancy is 100 %.\n"
                                     "until theoretical_occupancy = 100\nsolution block 64\n"
                                     "step D\nplayground threadIdx.x * 2\nshow playground\n"
                                     "step E\nkernel mine.cu\nblock 256\nshow global\n",
                                     "mine.lesson");
  std::vector<std::string> launches;
  for (const KernelRequest& r : lesson_launches({lesson}, presets()))
    launches.push_back(r.kernel->id + " " + format_block(r.block));
  EXPECT_EQ(launches, (std::vector<std::string>{"vec_add/scalar 128", "vec_add/scalar 32",
                                                "vec_add/scalar 64"}));
}

TEST(Lessons, ATypedAnswerThatIsNoNumberIsSaidSoAndCountsAsNoTry) {
  const Lesson lesson = load_lesson(find_lesson("vector-add"));
  const LessonStep& step = lesson.steps.front();
  const LessonVerdict v = judge_answer(step, "four", modelled(lesson, step));
  EXPECT_FALSE(v.right);
  EXPECT_TRUE(test::contains(v.says, "'four' is not a number")) << v.says;
  EXPECT_TRUE(judge_answer(step, " 4.0 ", modelled(lesson, step)).right);
}

TEST(Lessons, ALessonIsFoundByNameOrByPath) {
  EXPECT_TRUE(find_lesson("coalescing").filename().string().ends_with("-coalescing.lesson"));
  EXPECT_EQ(find_lesson("my/own.lesson"), std::filesystem::path("my/own.lesson"));
  try {
    find_lesson("nope");
    ADD_FAILURE() << "nope was found";
  } catch (const UsageError& e) {
    EXPECT_TRUE(test::contains(e.what(), "no lesson 'nope'; the bundled lessons are vector-add"))
        << e.what();
  }
}

struct HostileLesson {
  std::string name;
  std::string text;
  std::string fragment; // the message names "hostile.lesson:LINE: ..."
  friend void PrintTo(const HostileLesson& c, std::ostream* os) { *os << c.name; }
};

const std::string kHead = "lesson L\nstep S\nkernel vec_add/scalar\n";

const HostileLesson kHostileLessons[] = {
    {"Empty", "", "hostile.lesson: an empty lesson"},
    {"NoTitle", "step S\n", "hostile.lesson:1: a lesson starts with its title"},
    {"TwoTitles", "lesson A\nlesson B\n", "hostile.lesson:2: a second lesson line"},
    {"NoStep", "lesson L\nabout x\n", "hostile.lesson: the lesson has no step"},
    {"UnknownVerb", kHead + "explode now\n", "hostile.lesson:4: 'explode' is not a lesson line"},
    {"NearVerb", kHead + "aks how many?\n", "'aks' is not a lesson line; did you mean 'ask'?"},
    {"VerbBeforeStep", "lesson L\nkernel vec_add/scalar\n",
     "hostile.lesson:2: 'kernel' belongs to a step"},
    {"StepWithoutLaunch", "lesson L\nstep S\nsay hi\n", "hostile.lesson:2: the step 'S' has no"},
    {"AskWithoutAnswer", kHead + "ask why?\n", "hostile.lesson:2: the step asks but has no"},
    {"AnswerWithoutAsk", kHead + "answer blocks_per_sm\n", "hostile.lesson:2: the step has an"},
    {"KernelTwice", kHead + "kernel vec_add/vec4\n", "hostile.lesson:4: kernel is given twice"},
    {"BadParam", kHead + "param stride\n", "hostile.lesson:4: 'stride' is not NAME=VALUE"},
    {"SiteUnquoted", kHead + "ask q\nanswer sectors of load a\n",
     "hostile.lesson:5: of needs a site's name in quotes"},
    {"SiteUnclosed", kHead + "ask q\nanswer sectors of \"load a\n",
     "hostile.lesson:5: the site's name has no closing quote"},
    {"ConditionNoComparison", kHead + "ask q\nuntil sectors 4\nsolution block 64\n",
     "hostile.lesson:5: until needs a comparison"},
    {"ConditionNotANumber", kHead + "ask q\nuntil sectors = lots\nsolution block 64\n",
     "hostile.lesson:5: the value compared with 'lots' is not a number"},
    {"ConditionHuge", kHead + "ask q\nuntil sectors = 1e999\nsolution block 64\n",
     "hostile.lesson:5: the value compared with '1e999' is not a number"},
    {"UntilWithoutSolution", kHead + "ask q\nuntil sectors = 4\n",
     "hostile.lesson:2: until needs a solution"},
    {"LimiterWithoutChoices", kHead + "ask q\nanswer limiter\n",
     "hostile.lesson:2: answer limiter is a choice"},
    {"OneChoice", kHead + "ask q\nanswer limiter\nchoices warps\n",
     "hostile.lesson:6: choices offers 2 to 8 answers"},
    {"ElementSeven", "lesson L\nstep S\nplayground threadIdx.x\nelement 7\n",
     "hostile.lesson:4: element 7: allowed 1, 2, 4, 8 or 16"},
    {"SpaceOutsidePlayground", kHead + "space shared\n",
     "hostile.lesson:4: space belongs to a playground step"},
    {"WithinTooWide", kHead + "within 90%\n", "hostile.lesson:4: within 90%: allowed 0 to 50 %"},
    {"ControlCharacter", kHead + "say \x1b[31mred\n", "hostile.lesson:4: a control character"},
    {"LineTooLong", kHead + "say " + std::string(3000, 'x') + "\n",
     "hostile.lesson:4: a line of 3004 characters; at most 2000"},
    {"NestedBrackets", kHead + "ask q\nanswer " + std::string(100000, '[') + "\n",
     "hostile.lesson:5: a line of 100007 characters"},
    {"NotAPanel", kHead + "show global_memory\n",
     "hostile.lesson:4: show 'global_memory' is not a panel; allowed launch"},
    {"DoubleEquals", kHead + "ask q\nuntil sectors == 4\nsolution block 64\n",
     "hostile.lesson:5: '==' is not a comparison here: write ="},
    {"SiteInThePlayground",
     "lesson L\nstep S\nplayground threadIdx.x * 2\nask q\nuntil sectors_per_request of \"x\" = "
     "4\nsolution playground threadIdx.x\n",
     "hostile.lesson:5: the playground's access has no sites"},
    {"ExerciseNotAFile", "lesson L\nstep S\nexercise vec_add/scalar\n",
     "hostile.lesson:3: exercise takes a kernel file beside the lesson"},
    {"ExerciseWithoutAGoal", "lesson L\nstep S\nexercise mine.cu\nask q\nanswer registers\n",
     "hostile.lesson:2: an exercise is judged by until CONDITION and proven by solution file"},
    {"SolutionFileOutsideAnExercise", kHead + "ask q\nuntil sectors = 4\nsolution file x.cu\n",
     "hostile.lesson:2: solution file belongs to an exercise step"},
    {"EveryOfAnUnknownSpace",
     kHead + "ask q\nuntil sectors of every local load <= 4\nsolution block 64\n",
     "hostile.lesson:5: of every 'local': allowed of every global or of every shared"},
    {"EveryOfAnUnknownAccess",
     kHead + "ask q\nuntil sectors of every global read <= 4\nsolution block 64\n",
     "hostile.lesson:5: of every global 'read': allowed of every global load, store or access"},
};

class HostileLessonFile : public testing::TestWithParam<HostileLesson> {};

TEST_P(HostileLessonFile, IsRefusedInOneLineNamingItsLine) {
  try {
    parse_lesson(GetParam().text, "hostile.lesson");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, GetParam().fragment)) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Lines, HostileLessonFile, testing::ValuesIn(kHostileLessons),
                         [](const testing::TestParamInfo<HostileLesson>& info) {
                           return info.param.name;
                         });

// The defect: a lesson of 10,000 steps (475 KB, under the size limit) took minutes to check,
// 12 ms a step. A step past the most a lesson holds is named, and the lines after it not read.
TEST(HostileLessonFile, AStepPastTheMostIsNamedAndTheRestNotRead) {
  std::string text = "lesson L\n";
  for (std::size_t i = 0; i < kMostLessonSteps + 100; ++i)
    text += "step S\nkernel vec_add/scalar\nshow global\n";
  try {
    parse_lesson(text, "long.lesson");
    ADD_FAILURE() << "accepted";
  } catch (const LessonFileError& e) {
    ASSERT_EQ(e.problems.size(), 1u) << joined(e.problems, "\n");
    EXPECT_TRUE(
        test::contains(e.problems[0], "long.lesson:" + std::to_string(2 + 3 * kMostLessonSteps) +
                                          ": a step past the 500th"))
        << e.problems[0];
  }
}

// The defect: `lesson check` named the first problem of a file and stopped, so a teacher fixed one
// and ran it again, four times for four problems. Every line's problem and every step's are named
// at once; the message alone stays one line and says there are more.
TEST(HostileLessonFile, EveryProblemOfTheFileIsNamedAtOnce) {
  try {
    parse_lesson("lesson L\nstep S\nkernel vec_add/scalar\nshow globl\nask q\n"
                 "step T\nkernel vec_add/scalar\nbogus line\nstep U\nkernel vec_add/scalar\n"
                 "ask r\n",
                 "teacher.lesson");
    ADD_FAILURE() << "accepted";
  } catch (const LessonFileError& e) {
    ASSERT_EQ(e.problems.size(), 4u) << joined(e.problems, "\n");
    EXPECT_TRUE(test::contains(e.problems[0], "teacher.lesson:4: show 'globl'")) << e.problems[0];
    EXPECT_TRUE(test::contains(e.problems[1], "teacher.lesson:8: 'bogus'")) << e.problems[1];
    EXPECT_TRUE(test::contains(e.problems[2], "teacher.lesson:2: the step asks but has no answer"))
        << e.problems[2];
    EXPECT_TRUE(test::contains(e.problems[3], "teacher.lesson:9: the step asks but has no answer"))
        << e.problems[3];
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_TRUE(test::contains(what, "(and 3 more problems; warplens lesson check names them all)"))
        << what;
  }
}

// The defect: `lesson check` named a file's line problems and stopped, so a wrong site name in a
// sound step came out only in a second round, after the lines were fixed. The sound steps are
// played with the models in the same pass, and every problem comes in the file's order.
TEST(HostileLessonFile, TheSoundStepsAreCheckedWithTheModelsBesideTheLinesProblems) {
  const std::string text = "lesson L\nstep S\nkernel vec_add/scalar\nshow globl\nask q\n"
                           "step T\nkernel vec_add/scalar\nask Sectors?\n"
                           "answer sectors_per_request of \"load zz\"\n"
                           "step U\nkernel vec_add/nope\nshow global\n";
  try {
    parse_lesson(text, "teacher.lesson");
    ADD_FAILURE() << "accepted";
  } catch (const LessonFileError& e) {
    ASSERT_TRUE(e.sound);
    ASSERT_EQ(e.sound->steps.size(), 2u);
    EXPECT_EQ(e.sound->steps[0].line, 6);
    EXPECT_EQ(e.sound->steps[1].line, 10);
  }
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("wl_two_rounds_" + std::to_string(getpid()));
  std::ofstream(file) << text;
  const test::CommandResult r = test::run_warplens("lesson check " + file.string());
  std::filesystem::remove(file);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  std::vector<std::size_t> at;
  for (const char* line : {":2: the step asks but has no answer", ":4: show 'globl'",
                           ":9: the kernel vec_add/scalar has no site \"load zz\"",
                           ":11: unknown variant 'vec_add/nope'", "4 problems in 1 lesson file"}) {
    at.push_back(r.out.find(line));
    EXPECT_NE(at.back(), std::string::npos) << line << "\n" << r.out;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << r.out;
}

// A hostile hunt's lesson files: a line given twice that took the last value, messages that
// misled ("'about' is not a lesson line; did you mean 'about'?"), a bad exercise line said again
// as "a step without a launch", and a byte-order mark taken for the title.
TEST(HostileLessonFile, RepeatsAndMisplacedLinesAreNamedOnceAndRight) {
  const std::string step = "step S\nkernel vec_add/scalar\nask q\nanswer registers\n";
  const auto problems = [](const std::string& text) {
    try {
      parse_lesson(text, "t.lesson");
    } catch (const LessonFileError& e) {
      return e.problems;
    }
    return std::vector<std::string>{};
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"lesson L\n" + step + "about late\n", "t.lesson:6: about belongs before the first step"},
      {"lesson L\narch h100\narch h200\n" + step, "t.lesson:3: arch is given twice"},
      {"lesson L\n" + step + "within 50\nwithin 1\n", "t.lesson:7: within is given twice"},
      {"lesson L\n" + step + "answer blocks_per_sm\n",
       "t.lesson:6: answer: the step's question is already answered on line 5"},
      {"lesson L\nstep S\nkernel vec_add/scalar\nask q\nanswer limiter\nchoices warps warps\n",
       "t.lesson:6: choices offers warps twice"},
      {"lesson L\nstep S\nexercise /etc/hostname\nask q\nuntil registers <= 32\n"
       "solution file s.cu\n",
       "t.lesson:3: exercise takes a kernel file"},
  };
  for (const auto& [text, said] : cases) {
    const std::vector<std::string> found = problems(text);
    ASSERT_EQ(found.size(), 1u) << text << "\n" << joined(found, "\n");
    EXPECT_TRUE(test::contains(found[0], said)) << found[0];
  }
  EXPECT_EQ(parse_lesson("\xEF\xBB\xBFlesson L\n" + step, "t.lesson").title, "L");
  // Tabs part words as spaces do.
  EXPECT_EQ(parse_lesson("lesson L\nstep S\nkernel\tvec_add/scalar\nask q\nanswer\tregisters\n",
                         "t.lesson")
                .steps[0]
                .answer.key,
            "registers");
  const std::vector<std::string> unasked =
      problems("lesson L\nstep S\nexercise copy.cu\nuntil registers <= 32\nsolution file s.cu\n");
  ASSERT_EQ(unasked.size(), 1u) << joined(unasked, "\n");
  EXPECT_TRUE(test::contains(unasked[0], "t.lesson:2: the exercise has a goal but asks nothing"))
      << unasked[0];
}

// A broken opening line (its arch) is every step's: then no step is played.
TEST(HostileLessonFile, ABrokenOpeningLineLeavesNoSoundStep) {
  try {
    parse_lesson("lesson L\narch two words\nstep S\nkernel vec_add/scalar\n", "t.lesson");
    ADD_FAILURE() << "accepted";
  } catch (const LessonFileError& e) {
    EXPECT_FALSE(e.sound);
  }
}

// The defect: `least bogus`, a parameter the kernel does not have, passed lesson check.
TEST(HostileLessonCheck, ALeastOfNoSuchParameterIsNamed) {
  const std::vector<std::string> problems = check_lesson(
      parse_lesson("lesson L\nstep S\nkernel coalescing/stride\nparam stride=2\nask q\n"
                   "until sectors_per_request of \"load in (strided)\" <= 4\nleast strid\n"
                   "solution param stride=1\n",
                   "teacher.lesson"),
      presets());
  ASSERT_FALSE(problems.empty());
  EXPECT_TRUE(test::contains(problems.front(),
                             "teacher.lesson:7: least 'strid' is not a parameter of "
                             "coalescing/stride; did you mean 'stride'?"))
      << problems.front();
}

// A teacher's walkthrough: `until verified` alone was refused as "the template already meets
// the goal", and a goal on a site by its line met a solution whose lines moved with "has no value
// for this launch". Each now says what is wrong.
TEST(HostileLessonCheck, AGoalTheModelsCannotJudgeOrASiteByLineIsSaidAsSuch) {
  WL_SKIP_WITHOUT_ENGINE(); // the exercises compile their kernel files with NVRTC
  const std::string folder =
      (std::filesystem::path(WARPLENS_SOURCE_ASSETS) / "lessons" / "11-exercises").string();
  const auto problems_of = [&](const std::string& until) {
    return check_lesson(parse_lesson("lesson L\nstep S\nexercise " + folder +
                                         "/pad_tile.cu\nask q\nuntil " + until +
                                         "\nsolution file " + folder + "/pad_tile_solved.cu\n",
                                     "teacher.lesson"),
                        presets());
  };
  const std::vector<std::string> verified = problems_of("verified");
  ASSERT_EQ(verified.size(), 1u) << joined(verified, "\n");
  EXPECT_TRUE(test::contains(verified[0], "teacher.lesson:5: until verified alone is judged on a "
                                          "GPU only"))
      << verified[0];
  // A site by its line that the launch no longer has (an edit moved it): named, with the sites
  // there are.
  const Lesson moved = parse_lesson("lesson L\nstep S\nkernel coalescing/stride\nask q\n"
                                    "until sectors_per_request of \"line 99: global load, 4 B\" "
                                    "<= 4\nsolution param stride=1\n",
                                    "teacher.lesson");
  const StepLaunch launch = step_launch(moved, moved.steps[0], presets());
  const LessonVerdict verdict = judge_launch(
      moved.steps[0], model_kernel(launch.request, launch.arch), [&](const Params& params) {
        return model_kernel(KernelRequest{launch.request.kernel, params, launch.request.block},
                            launch.arch);
      });
  EXPECT_FALSE(verdict.right);
  EXPECT_TRUE(test::contains(verdict.says, "the kernel has no site \"line 99: global load, 4 B\" "
                                           "(its sites: \""))
      << verdict.says;
  EXPECT_TRUE(test::contains(verdict.says, "name sites by kind")) << verdict.says;
}

// A playground figure written wrong gets the nearest name and the list of those there are.
TEST(HostileLessonCheck, APlaygroundFigureTypoGetsTheNearestName) {
  const std::vector<std::string> problems =
      check_lesson(parse_lesson("lesson L\nstep S\nplayground threadIdx.x * 2\nask q\n"
                                "answer sector_per_request\n",
                                "teacher.lesson"),
                   presets());
  ASSERT_EQ(problems.size(), 1u) << problems.back();
  EXPECT_TRUE(test::contains(problems.front(), "did you mean 'sectors_per_request'?; it has "))
      << problems.front();
}

// What only playing a step with the models finds: each problem on its own line, with its line.
// An unknown preset is said once, at its line, not again for every step that takes it.
TEST(HostileLessonCheck, AnUnknownPresetIsNamedOnceAtItsLine) {
  const std::vector<std::string> problems = check_lesson(
      parse_lesson("lesson L\narch h1000\nstep S\nkernel vec_add/scalar\nstep T\nkernel "
                   "vec_add/vec4\nstep U\nkernel vec_add/scalar\narch a100\n",
                   "hostile.lesson"),
      presets());
  ASSERT_EQ(problems.size(), 1u) << problems.back();
  EXPECT_TRUE(test::contains(problems.front(), "hostile.lesson:2: ")) << problems.front();
}

TEST(HostileLessonCheck, WhatTheModelsRefuseIsNamedWithItsLine) {
  const std::pair<std::string, std::string> cases[] = {
      {kHead + "ask q\nanswer wavefronts_per_request of \"load a\"\n",
       "hostile.lesson:5: 'wavefronts_per_request' is not a figure of the global site \"load a\""},
      {kHead + "ask q\nanswer sector_per_request of \"load a\"\n",
       "did you mean 'sectors_per_request'?"},
      {kHead + "ask q\nanswer block_per_sm\n", "did you mean 'blocks_per_sm'?"},
      {kHead + "block 32\nask q\nanswer limiter\nchoices warps lanes\n",
       "hostile.lesson:7: choice 'lanes' is not a resource"},
      {"lesson L\nstep S\nplayground threadIdx.x +\nask q\nanswer sectors\n", "hostile.lesson:3: "},
      {"lesson L\nstep S\nkernel nope/nope\n", "hostile.lesson:3: unknown kernel 'nope/nope'"},
      {kHead + "param n=1024\nparam stride=2\n",
       "hostile.lesson:5: vec_add/scalar has no parameter 'stride'"},
      {kHead + "block 4096\n", "hostile.lesson:4: vec_add/scalar cannot use block 4096"},
      {kHead + "ask q\nuntil theoretical_occupancy < 10\nsolution param n=-1\n",
       "hostile.lesson:6: "},
      {kHead + "ask q\nanswer sectors_per_request of \"load z\"\n",
       "hostile.lesson:5: the kernel vec_add/scalar has no site \"load z\"; its sites: \"load a\""},
      {kHead + "ask q\nanswer no_such_figure\n", "hostile.lesson:5: 'no_such_figure' is not"},
      {kHead + "ask q\nanswer limiter\nchoices registers lanes\n",
       "hostile.lesson:6: choice 'lanes' is not a resource"},
      {kHead + "ask q\nanswer blocks_per_sm\nchoices 4 16\n",
       "hostile.lesson:5: 0 of the choices match 8; exactly one must"},
      {kHead + "ask q\nanswer blocks_per_sm\nchoices a b c\n",
       "hostile.lesson:6: the choice 'a' is not a number, and the answer (8) is one"},
      {kHead + "ask q\nuntil theoretical_occupancy = 100\nsolution block 32\n",
       "hostile.lesson:5: the step's own launch already meets the condition"},
      {"lesson L\nstep S\nkernel vec_add/scalar\nblock 32\nask q\nuntil theoretical_occupancy "
       "= 100\nsolution block 16\n",
       "hostile.lesson:7: the solution does not meet the condition"},
      {"lesson L\nstep S\nplayground threadIdx.x *\n", "hostile.lesson:3: index"},
      {"lesson L\narch nope\nstep S\nkernel vec_add/scalar\nstep T\nkernel vec_add/vec4\n",
       "hostile.lesson:2: "},
  };
  for (const auto& [text, fragment] : cases) {
    const std::vector<std::string> problems =
        check_lesson(parse_lesson(text, "hostile.lesson"), presets());
    ASSERT_FALSE(problems.empty()) << text;
    EXPECT_TRUE(test::contains(problems.front(), fragment)) << problems.front();
    for (const std::string& problem : problems)
      EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
  }
}

TEST(HostileLessonFile, AFolderOrAMissingFileIsRefusedNamingIt) {
  test::expect_one_line_error("lesson check /tmp", {"/tmp: is a folder; a lesson is"});
  test::expect_one_line_error(
      "lesson check /nonexistent/x.lesson",
      {"/nonexistent/x.lesson: no such file; the lesson must be a text file of steps"});
  test::expect_one_line_error("lesson check nope", {"no lesson 'nope'"});
}

} // namespace
} // namespace wl
