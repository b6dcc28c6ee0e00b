#include "lesson/lesson_exercise.h"

#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "base/text_file.h"
#include "kernel_file/file_kernel.h"

#include <cstdlib>

namespace wl {

namespace {

// The copy made from the template, or left as it is where the learner has one.
void make_copy(const std::filesystem::path& copy, const std::filesystem::path& template_file) {
  std::error_code error;
  const std::filesystem::file_status there = std::filesystem::symlink_status(copy, error);
  if (std::filesystem::exists(there)) {
    if (std::filesystem::is_directory(std::filesystem::status(copy, error)))
      throw UsageError("your copy of the exercise, " + clip(copy.string(), 160) +
                       ", is a folder; move it away and open the lesson again");
    return; // theirs: never replaced
  }
  if (const std::string problem = make_folders(copy.parent_path()); !problem.empty())
    throw UsageError("the exercise cannot be copied for you: " + problem +
                     "; set WARPLENS_EXERCISES to a folder you can write");
  const std::string text =
      read_text_file(template_file, "exercise template", "a CUDA kernel file", 1 << 20);
  if (const std::string problem = write_file_safely(
          copy, text,
          {.replace_existing = false, .write_through_links = false, .keep_on_failure = false});
      !problem.empty())
    throw UsageError("the exercise cannot be copied for you: " + problem);
}

} // namespace

std::filesystem::path exercises_folder() {
  if (const char* set = std::getenv("WARPLENS_EXERCISES"); set && set[0] != '\0') {
    if (set[0] != '/') // relative to what? a copy must be found again from any folder
      throw UsageError("WARPLENS_EXERCISES='" + clip(set, 80) +
                       "' is not an absolute path; allowed a folder's whole path, e.g. "
                       "/home/you/exercises");
    return set;
  }
  if (const char* home = std::getenv("HOME"); home && home[0] == '/')
    return std::filesystem::path(home) / "warplens-exercises";
  return {};
}

std::filesystem::path exercise_copy(const Lesson& lesson, const LessonStep& step,
                                    const std::filesystem::path& given) {
  const std::filesystem::path folder = given.empty() ? exercises_folder() : given;
  if (folder.empty())
    throw UsageError("no folder for your exercises: set WARPLENS_EXERCISES (or HOME) to an "
                     "absolute path");
  // The lesson's file name makes a folder inside `folder`: "...lesson" would make "..", outside it.
  const std::string lesson_name = std::filesystem::path(lesson.file).stem().string();
  if (lesson_name.empty() || lesson_name == "." || lesson_name == "..")
    throw UsageError("the lesson file " + clip(lesson.file, 80) +
                     " names no folder for its exercises' copies; allowed a name such as "
                     "my-lesson.lesson");
  return folder / lesson_name / std::filesystem::path(kernel_file_path(step.kernel)).filename();
}

Lesson learner_lesson(const Lesson& lesson, const std::filesystem::path& folder) {
  Lesson out = lesson;
  for (LessonStep& step : out.steps) {
    if (!step.exercise)
      continue;
    const std::string template_file = kernel_file_path(step.kernel);
    const std::filesystem::path copy = exercise_copy(lesson, step, folder);
    make_copy(copy, template_file);
    step.kernel = copy.string() + step.kernel.substr(template_file.size()); // ":KERNEL" kept
  }
  return out;
}

} // namespace wl
