#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "cli_commands.h"
#include "io/assets.h"
#include "lesson/lesson_judge.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace wl {

namespace {

// Each file read and every step played with the models; its problems, one line each, or what it
// holds. Any problem in any file: exit 2, as bad input is.
void check_lessons(const std::vector<std::string>& files, bool answers) {
  const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
  int problems = 0;
  for (const std::string& file : files) {
    const Lesson lesson = load_lesson(find_lesson(file));
    const std::vector<std::string> found = check_lesson(lesson, presets);
    for (const std::string& problem : found)
      std::cerr << problem << "\n";
    problems += static_cast<int>(found.size());
    if (answers && found.empty())
      for (const std::string& answer : lesson_answers(lesson, presets))
        std::printf("%s\n", answer.c_str());
    if (found.empty())
      std::printf("%s: \"%s\", %zu steps, %d questions; every launch, figure, site and condition "
                  "checked with the models\n",
                  lesson.file.c_str(), clip(lesson.title, 60).c_str(), lesson.steps.size(),
                  lesson.questions());
  }
  if (problems > 0)
    throw UsageError(counted(problems, "problem") + " in " + counted(files.size(), "lesson file") +
                     "; each is named above with its line");
}

void list_lessons() {
  int questions = 0;
  for (const std::filesystem::path& path : bundled_lessons()) {
    const Lesson lesson = load_lesson(path);
    const std::string stem = path.stem().string();
    std::printf("%-24s %s (%zu steps, %d questions)\n", stem.substr(stem.find('-') + 1).c_str(),
                lesson.title.c_str(), lesson.steps.size(), lesson.questions());
    questions += lesson.questions();
  }
  std::printf("%s in all; open one with: warplens --lesson NAME\n",
              counted(questions, "question").c_str());
}

} // namespace

void add_lesson_command(CLI::App& app) {
  CLI::App* lesson = app.add_subcommand(
      "lesson", "The course's lessons: list them, or check a lesson file a teacher wrote");
  lesson->require_subcommand(1);
  lesson->add_subcommand("list", "The bundled lessons in course order")->callback(list_lessons);
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* check = lesson->add_subcommand(
      "check", "Read lesson files and play every step with the models: each problem named with "
               "its line (exit 2), else what each holds");
  check->add_option("file", *files, "Lesson files (.lesson), or bundled lessons' names")
      ->required();
  auto answers = std::make_shared<bool>(false);
  check->add_flag("--answers", *answers,
                  "Also print each question's answer as the models give it (for the teacher)");
  check->callback([files, answers] { check_lessons(*files, *answers); });
}

} // namespace wl
