// check_lesson: every step of a lesson played with the models (lesson_judge.h says what it checks).

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "kernel_file/file_kernel.h"
#include "lesson/lesson_judge.h"
#include "model/model_kernel.h"
#include "model/occupancy.h"
#include "report/figures.h"
#include "report/panel_table.h"

#include <algorithm>
#include <charconv>

namespace wl {

namespace {

class StepCheck {
public:
  StepCheck(const Lesson& lesson, const LessonStep& step, std::vector<std::string>& problems)
      : m_lesson(lesson), m_step(step), m_problems(problems) {}

  void run(const std::vector<Arch>& presets) {
    try {
      if (m_step.playground)
        playground();
      else
        launch(presets);
    } catch (const UsageError& e) {
      const std::string what = e.what();
      // A launch that does not resolve says its line already; a kernel file that does not
      // compile (when first modelled) is the line that names it.
      const int line = m_compiling ? m_compiling : m_step.line;
      m_problems.push_back(what.starts_with(m_lesson.file + ":") ? what : at(line) + what);
    }
  }

private:
  std::string at(int line) const { return m_lesson.file + ":" + std::to_string(line) + ": "; }
  void problem(int line, const std::string& what) { m_problems.push_back(at(line) + what); }

  void launch(const std::vector<Arch>& presets) {
    const StepLaunch launch = step_launch(m_lesson, m_step, presets);
    m_compiling = m_step.kernel_line;
    const RunResult result = model_kernel(launch.request, launch.arch);
    m_compiling = 0;
    if (m_step.answer_line)
      answer(result);
    if (m_step.until_line) {
      const auto model_with = [&](const Params& params) {
        KernelRequest request = launch.request;
        request.params = params;
        return model_kernel(request, launch.arch);
      };
      for (const Condition& condition : m_step.until)
        figure_exists(condition.figure, result, m_step.until_line);
      checked_outputs(launch.request, m_step.kernel_line);
      if (!m_step.least.empty() && !launch.request.params.contains(m_step.least)) {
        std::vector<std::string> names;
        for (const auto& [name, value] : launch.request.params)
          names.push_back(name);
        problem(m_step.least_line,
                "least " + in_quotes(m_step.least, 40) + " is not a parameter of " +
                    launch.request.kernel->id + did_you_mean(m_step.least, names) +
                    (names.empty() ? "; it has none" : "; it has " + joined(names, ", ")));
      }
      const bool outputs_alone =
          std::all_of(m_step.until.begin(), m_step.until.end(),
                      [](const Condition& c) { return c.figure.key == "verified"; });
      if (outputs_alone) // the models run nothing: by them, every launch meets it
        problem(m_step.until_line,
                "until verified alone is judged on a GPU only (the models run nothing, so every "
                "copy would meet it with them): add a figure the start misses, e.g. until "
                "sectors_per_request of every global access <= 4 and verified");
      else if (judge_launch(m_step, result, model_with).right)
        problem(m_step.until_line,
                m_step.exercise ? "the template already meets the goal; give the learner one "
                                  "that does not"
                                : "the step's own launch already meets the condition; start "
                                  "the learner from one that does not");
      const StepLaunch solved = step_launch(m_lesson, m_step, presets, true);
      if (!m_step.solution_kernel.empty()) {
        checked_outputs(solved.request, m_step.solution_line);
        same_kernel(launch.request, solved.request);
      }
      m_compiling = m_step.solution_kernel.empty() ? 0 : m_step.solution_line;
      const RunResult solved_result = model_kernel(solved.request, solved.arch);
      m_compiling = 0;
      const LessonVerdict verdict = judge_launch(m_step, solved_result, model_with);
      if (!verdict.right) // the learner's words ("Not yet: ... Hint: ...") lose the hint here
        problem(m_step.solution_line, "the solution does not meet the condition: " +
                                          verdict.says.substr(0, verdict.says.find(" Hint: ")));
    }
  }

  // A goal that asks for checked outputs, on a kernel file that checks none: a GPU could never
  // meet it.
  void checked_outputs(const KernelRequest& request, int line) {
    const bool asks = std::any_of(m_step.until.begin(), m_step.until.end(),
                                  [](const Condition& c) { return c.figure.key == "verified"; });
    const auto file = kernel_file_of(request.kernel->id);
    if (asks && file && file->description.reference.empty())
      problem(line, file->path.filename().string() +
                        " says `check none`: no run checks its outputs, so `verified` is never met "
                        "on a GPU; give it a check (// @warplens check REFERENCE TOLERANCE)");
  }

  // An exercise's solution runs the template's kernel: the learner's copy keeps its name.
  void same_kernel(const KernelRequest& start, const KernelRequest& solved) {
    const auto kernel_of = [](const std::string& id) { return id.substr(id.find('/') + 1); };
    if (kernel_of(start.kernel->id) != kernel_of(solved.kernel->id))
      problem(m_step.solution_line,
              "the solution runs kernel " + kernel_of(solved.kernel->id) + ", the template " +
                  kernel_of(start.kernel->id) +
                  ": the learner's copy keeps the template's, so the solution must too");
  }

  void answer(const RunResult& result) {
    if (m_step.answer.key == "limiter") {
      for (const std::string& choice : m_step.choices)
        if (std::none_of(kAllResources.begin(), kAllResources.end(),
                         [&](Resource r) { return choice == resource_name(r); }))
          problem(m_step.choices_line,
                  "choice '" + clip(choice, 30) +
                      "' is not a resource; allowed warps, registers, shared_memory, blocks, "
                      "barriers");
      const std::vector<std::string> limiters = limiter_names(result);
      if (std::none_of(limiters.begin(), limiters.end(), [&](const std::string& l) {
            return std::find(m_step.choices.begin(), m_step.choices.end(), l) !=
                   m_step.choices.end();
          }))
        problem(m_step.answer_line,
                "none of the choices limits this launch; the model says: " +
                    (result.occupancy ? result.occupancy->explanation : std::string("nothing")));
      return;
    }
    figure_exists(m_step.answer, result, m_step.answer_line);
    if (!m_step.choices.empty())
      numeric_choices(result);
  }

  // A choice question on a number: the figure's value is among the choices, once.
  void numeric_choices(const RunResult& result) {
    const std::optional<FigureReading> truth = read_figure(m_step.answer, result);
    if (!truth)
      return;
    int right = 0;
    for (const std::string& choice : m_step.choices) {
      if (!typed_number(choice))
        return problem(m_step.choices_line, "the choice " + in_quotes(choice, 30) +
                                                " is not a number, and the answer (" + truth->text +
                                                ") is one");
      right += judge_answer(m_step, choice, result).right ? 1 : 0;
    }
    if (right != 1)
      problem(m_step.answer_line, std::to_string(right) + " of the choices match " + truth->text +
                                      "; exactly one must");
  }

  void figure_exists(const FigureRef& figure, const RunResult& result, int line) {
    if (!figure.every.empty()) {
      const MemorySpace space =
          figure.every.starts_with("global") ? MemorySpace::global : MemorySpace::shared;
      const std::vector<std::string>& keys = site_figure_keys(space);
      if (std::find(keys.begin(), keys.end(), figure.key) == keys.end())
        problem(line, in_quotes(figure.key, 40) + " is not a figure of a " +
                          figure.every.substr(0, 6) + " site" + did_you_mean(figure.key, keys) +
                          "; its figures: " + joined(keys, ", "));
      return;
    }
    if (read_figure(figure, result))
      return;
    if (!figure.site.empty() &&
        std::none_of(result.prediction.sites.begin(), result.prediction.sites.end(),
                     [&](const SitePrediction& s) { return s.name == figure.site; })) {
      std::string names;
      for (const SitePrediction& s : result.prediction.sites) {
        names += names.empty() ? "" : ", ";
        names += "\"" + s.name + "\"";
      }
      return problem(line, "the kernel " + result.kernel_id + " has no site \"" +
                               clip(figure.site, 40) +
                               "\"; its sites: " + (names.empty() ? "none" : names));
    }
    if (!figure.site.empty()) {
      const SitePrediction& site =
          *std::find_if(result.prediction.sites.begin(), result.prediction.sites.end(),
                        [&](const SitePrediction& s) { return s.name == figure.site; });
      const std::vector<std::string>& keys = site_figure_keys(site.space);
      std::string listed;
      for (const std::string& key : keys)
        listed.append(listed.empty() ? "" : ", ").append(key);
      return problem(line, in_quotes(figure.key, 40) + " is not a figure of the " +
                               (site.space == MemorySpace::global ? "global" : "shared") +
                               " site \"" + figure.site + "\"" + did_you_mean(figure.key, keys) +
                               "; its figures: " + listed);
    }
    std::vector<std::string> keys;
    for (const Figure* f : launch_figures())
      if (read_figure({std::string(f->key), ""}, result))
        keys.emplace_back(f->key);
    problem(line, in_quotes(figure.key, 40) + " is not a figure of the launch with a value here" +
                      did_you_mean(figure.key, keys) + " (warplens model " + result.kernel_id +
                      " --json lists the launch's under \"figures\", a site's under \"sites\")");
  }

  bool evaluates(const IndexPlayground& playground, int line) {
    try {
      evaluate_playground(playground);
      return true;
    } catch (const UsageError& e) {
      problem(line, e.what());
      return false;
    }
  }

  void playground() {
    const IndexPlayground start = step_playground(m_step);
    // The step's expression, then the solution's: each refused at its own line.
    if (!evaluates(start, m_step.playground_line) ||
        !evaluates(step_playground(m_step, true), m_step.solution_line))
      return;
    // A figure the playground does not have, the nearest it has and all of them.
    const std::vector<std::string> keys = playground_figure_keys(start);
    const auto not_a_figure = [&](const std::string& key) {
      return in_quotes(key, 40) + " is not a figure of the playground's " +
             (m_step.playground->shared ? "shared" : "global") + " access" +
             did_you_mean(key, keys) + "; it has " + joined(keys, ", ");
    };
    if (m_step.answer_line && !read_playground_figure(m_step.answer.key, start))
      problem(m_step.answer_line, not_a_figure(m_step.answer.key));
    if (!m_step.until_line)
      return;
    bool known = true; // an unknown figure's condition is judged no further
    for (const Condition& condition : m_step.until)
      if (!read_playground_figure(condition.figure.key, start)) {
        problem(m_step.until_line, not_a_figure(condition.figure.key));
        known = false;
      }
    if (!known)
      return;
    if (judge_playground(m_step, start).right)
      problem(m_step.until_line, "the step's own expression already meets the condition");
    const LessonVerdict solved = judge_playground(m_step, step_playground(m_step, true));
    if (!solved.right)
      problem(m_step.solution_line, "the solution does not meet the condition: " + solved.says);
  }

  const Lesson& m_lesson;
  const LessonStep& m_step;
  std::vector<std::string>& m_problems;
  int m_compiling = 0; // the line of the kernel file being modelled (compiled at its first use)
};

} // namespace

std::vector<std::string> check_lesson(const Lesson& lesson, const std::vector<Arch>& presets) {
  std::vector<std::string> problems;
  bool arch_known = true;
  try {
    find_arch(presets, lesson.arch);
  } catch (const UsageError& e) { // said once, at its line; the steps that take it are not played
    problems.push_back(lesson.file + ":" + std::to_string(lesson.arch_line) + ": " + e.what());
    arch_known = false;
  }
  for (const LessonStep& step : lesson.steps)
    if (arch_known || !step.arch.empty() || step.playground)
      StepCheck(lesson, step, problems).run(presets);
  return problems;
}

namespace {

// The line a problem ("FILE:LINE: ...") names, 0 for one about the whole file.
int problem_line(const std::string& problem) {
  const std::size_t colon = problem.find(": ");
  if (colon == std::string::npos || colon == 0)
    return 0;
  const std::size_t before = problem.rfind(':', colon - 1);
  if (before == std::string::npos)
    return 0;
  int line = 0;
  const char* end = problem.data() + colon;
  const auto [stop, error] = std::from_chars(problem.data() + before + 1, end, line);
  return error == std::errc() && stop == end ? line : 0;
}

} // namespace

CheckedLessonFile check_lesson_file(const std::filesystem::path& file,
                                    const std::vector<Arch>& presets) {
  CheckedLessonFile checked;
  try {
    checked.lesson = load_lesson(file);
    checked.problems = check_lesson(*checked.lesson, presets);
  } catch (const LessonFileError& e) {
    checked.problems = e.problems;
    if (e.sound)
      for (std::string& problem : check_lesson(*e.sound, presets))
        checked.problems.push_back(std::move(problem));
  }
  std::stable_sort(
      checked.problems.begin(), checked.problems.end(),
      [](const std::string& a, const std::string& b) { return problem_line(a) < problem_line(b); });
  if (!checked.problems.empty())
    checked.lesson.reset();
  return checked;
}

namespace {

std::string modelled_answer(const Lesson& lesson, const LessonStep& step,
                            const std::vector<Arch>& presets) {
  if (step.playground) {
    if (step.until_line)
      return "met by: " + step.solution_expression;
    const auto reading = read_playground_figure(step.answer.key, step_playground(step));
    return reading ? reading->text + " (" + reading->source + ")" : "no value";
  }
  const StepLaunch launch = step_launch(lesson, step, presets, step.until_line != 0);
  const RunResult result = model_kernel(launch.request, launch.arch);
  if (step.until_line)
    return "met by the solution: " + conditions_read(step.until, result);
  if (step.answer.key == "limiter") {
    std::string names;
    for (const std::string& name : limiter_names(result))
      names += (names.empty() ? "" : " and ") + name;
    return names;
  }
  const auto reading = read_figure(step.answer, result);
  return reading ? reading->text + " (" + reading->source + ")" : "no value";
}

} // namespace

std::vector<std::string> lesson_answers(const Lesson& lesson, const std::vector<Arch>& presets) {
  std::vector<std::string> answers;
  for (const LessonStep& step : lesson.steps) {
    if (step.ask.empty())
      continue;
    std::string answer;
    try {
      answer = modelled_answer(lesson, step, presets);
    } catch (const UsageError& e) {
      answer = e.what();
    }
    answers.push_back(std::to_string(step.ask_line) + ": " + clip(step.ask, 70) + " -> " + answer);
  }
  return answers;
}

} // namespace wl

namespace wl {

namespace {

std::string reading_text(const std::optional<FigureReading>& reading) {
  return reading ? reading->text + " (" + reading->source + ")" : "no value";
}

// A number or choice question: the models' answer typed into the measured launch.
MeasuredAnswer asked_of(const LessonStep& step, const RunResult& model, const RunResult& measured) {
  MeasuredAnswer answer{step.ask_line, step.ask, "", "", false};
  if (step.answer.key == "limiter") {
    const std::vector<std::string> limiters = limiter_names(model);
    const auto chosen = std::find_first_of(limiters.begin(), limiters.end(), step.choices.begin(),
                                           step.choices.end());
    answer.modelled = chosen == limiters.end() ? "none of the choices" : *chosen;
    for (const std::string& name : limiter_names(measured))
      answer.measured.append(answer.measured.empty() ? "" : " and ").append(name);
    answer.holds = chosen != limiters.end() && judge_answer(step, *chosen, measured).right;
    return answer;
  }
  const std::optional<FigureReading> truth = read_figure(step.answer, model);
  answer.modelled = reading_text(truth);
  answer.measured = reading_text(read_figure(step.answer, measured));
  answer.holds = truth && judge_answer(step, format("%.17g", truth->value), measured).right;
  return answer;
}

} // namespace

std::vector<MeasuredAnswer>
answers_measured(const Lesson& lesson, const std::vector<Arch>& presets,
                 const std::function<RunResult(const StepLaunch&)>& measure) {
  std::vector<MeasuredAnswer> answers;
  for (const LessonStep& step : lesson.steps) {
    if (step.playground || step.kind == QuestionKind::none)
      continue;
    const StepLaunch launch = step_launch(lesson, step, presets);
    const RunResult model = model_kernel(launch.request, launch.arch);
    const RunResult measured = measure(launch);
    if (step.kind != QuestionKind::until) {
      answers.push_back(asked_of(step, model, measured));
      continue;
    }
    const auto model_with = [&](const Params& params) {
      return model_kernel(KernelRequest{launch.request.kernel, params, launch.request.block},
                          launch.arch);
    };
    const StepLaunch solved = step_launch(lesson, step, presets, true);
    const LessonVerdict start = judge_launch(step, measured, model_with);
    const LessonVerdict solution = judge_launch(step, measure(solved), model_with);
    answers.push_back({step.ask_line, step.ask, "the start fails, the solution holds",
                       "start: " + start.says + " Solution: " + solution.says,
                       !start.right && solution.right});
  }
  return answers;
}

} // namespace wl
