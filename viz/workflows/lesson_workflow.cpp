// The lesson workflow: a lesson opened (and checked, so a teacher's mistake is named with its line
// before a learner meets it), a step put on screen through the same choices a person makes in the
// Launch panel and the Index playground, the learner's answer judged against the figures on
// screen (lesson/lesson_judge.h), and the progress kept for the settings.

#include "base/error.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "lesson/lesson_exercise.h"
#include "model/block_text.h"
#include "model/model_kernel.h"
#include "registry.h"
#include "workflows/app.h"
#include "workflows/memory_maps.h"

#include <algorithm>

namespace wl::viz {

std::string lesson_id(const std::filesystem::path& file) {
  std::error_code error;
  const std::filesystem::path whole = std::filesystem::weakly_canonical(file, error);
  const std::filesystem::path bundled =
      std::filesystem::weakly_canonical(assets_dir() / "lessons", error);
  if (whole.parent_path() == bundled)
    return whole.stem().string();
  return whole.string();
}

namespace {

Tile& tile_of(App& app, Panel panel) { return app.choices.layout.tile[static_cast<int>(panel)]; }

// A step's panels in front: the Lessons panel, the one the step outlines (never behind the
// Lessons panel's tab: moved to the top row's right tile if it shared the Lessons panel's), and
// the Source panel, with the code the question is about, where neither holds its tile.
void show_step_panels(App& app, std::optional<Panel> outlined) {
  if (outlined && *outlined != Panel::lessons &&
      tile_of(app, *outlined) == tile_of(app, Panel::lessons))
    tile_of(app, *outlined) =
        tile_of(app, Panel::lessons) == Tile::top_right ? Tile::top_left : Tile::top_right;
  const Tile source = tile_of(app, Panel::source);
  if (source != tile_of(app, Panel::lessons) && (!outlined || source != tile_of(app, *outlined)))
    app.show_panel(Panel::source);
  if (outlined)
    app.show_panel(*outlined);
  app.show_panel(Panel::lessons);
}

bool asks_before_showing(const LessonStep& step) {
  return step.kind == QuestionKind::number || step.kind == QuestionKind::choice;
}

// "blocks: The limit of 32 blocks per SM caps ...": the limiter named, then the model's words.
std::string limiters_text(const RunResult& result) {
  std::string names;
  for (const std::string& name : limiter_names(result))
    names.append(names.empty() ? "" : " and ").append(name);
  const std::string explanation = result.occupancy ? result.occupancy->explanation : "";
  return names + (explanation.empty() ? "" : ": " + explanation);
}

bool asks_of_a_site(const LessonStep& step) {
  return !step.answer.site.empty() ||
         std::any_of(step.until.begin(), step.until.end(), [](const Condition& c) {
           return !c.figure.site.empty() || !c.figure.every.empty();
         });
}

// "block 64", "pad=1", "threadIdx.x ^ ...": what a step's solution changes, for the verdict.
std::string solution_text(const LessonStep& step) {
  if (!step.solution_expression.empty())
    return "the index " + step.solution_expression;
  if (!step.solution_kernel.empty())
    return "the file " + step.solution_kernel + " (open it beside your copy)";
  std::string text = step.solution_block.empty() ? "" : "block " + step.solution_block;
  for (const std::string& param : step.solution_params)
    text += (text.empty() ? "" : ", ") + param;
  return text;
}

void set_playground(PlaygroundChoice& choice, const IndexPlayground& playground) {
  write_field(playground.expression, choice.expression);
  write_field(playground.swizzle, choice.swizzle);
  choice.element_bytes = playground.element_bytes;
  choice.shared = playground.space == MemorySpace::shared;
  write_field(format_block(playground.block), choice.block);
  choice.warp = 0;
}

} // namespace

bool App::open_lesson(const std::string& name_or_path) {
  try {
    const std::filesystem::path file = find_lesson(name_or_path);
    CheckedLessonFile checked = check_lesson_file(file, choices.arches);
    const std::vector<std::string>& problems = checked.problems;
    if (!problems.empty()) // the first in the file's order, as lesson check lists them
      throw UsageError(problems.front() +
                       (problems.size() > 1
                            ? " (and " + std::to_string(problems.size() - 1) +
                                  " more: warplens lesson check " + file.string() + ")"
                            : ""));
    // An exercise's steps open the learner's copy of its template (made now if there is none).
    lessons.lesson = learner_lesson(*checked.lesson, lessons.exercises_dir);
    lessons.id = lesson_id(file);
    lessons.problem.clear();
    go_to_step(lessons.progress[lessons.id].step);
    show_panel(Panel::lessons);
    return true;
  } catch (const Error& e) {
    lessons.problem = e.what();
    return false;
  }
}

std::string App::lesson_preset() const {
  const RecordingSlot* chosen = recordings.chosen();
  return chosen && *chosen ? chosen->get()->arch : lessons.preset_asked;
}

void App::close_lesson() {
  lessons.lesson.reset();
  lessons.id.clear();
  lessons.verdict.reset();
  lessons.problem.clear();
}

void App::go_to_step(int index, bool ask_again) {
  if (!lessons.lesson)
    return;
  const int last = static_cast<int>(lessons.lesson->steps.size()) - 1;
  lessons.step = std::clamp(index, 0, last);
  LessonProgress& progress = lessons.progress[lessons.id];
  progress.step = lessons.step;
  lessons.typed.fill('\0');
  lessons.chosen.clear();
  lessons.tries = 0;
  lessons.exercise_judged = 0;
  lessons.exercise_text_judged.clear();
  lessons.verdict.reset();
  lessons.problem.clear();
  const LessonStep& step = *lessons.current();
  // A step answered right before is shown answered: the panels uncovered, until asked again.
  lessons.revealed =
      !ask_again && step.kind != QuestionKind::none && progress.done.contains(lessons.step);
  if (lessons.revealed)
    lessons.verdict = LessonVerdict{true, "You answered this step right before; Restart step "
                                          "asks it again."};
  try {
    if (step.playground) {
      set_playground(choices.playground, step_playground(step));
      show_panel(Panel::playground);
    } else {
      const StepLaunch launch = step_launch(*lessons.lesson, step, choices.arches);
      // A step on a kernel file opens it, so the learner's saves are followed as any file's.
      if (!names_a_kernel_file(step.kernel) || !open_kernel_file(step.kernel))
        select_kernel(launch.request.kernel->id);
      choices.params = launch.request.params;
      choices.set_block(launch.request.block);
      const std::string chosen = lesson_preset();
      choices.select_arch(step.arch.empty() && !chosen.empty() ? chosen : launch.arch.id);
      // A site's figure is measured by the per-site pass, which a Run asks for: where a GPU
      // measures, the step's question is then judged by measured figures (the models' otherwise).
      if (asks_of_a_site(step))
        choices.measure_per_site = true;
      if (source) // before the sources exist (--lesson), the session's first run sends it
        run_at_start();
    }
  } catch (const Error& e) {
    lessons.problem = e.what();
  }
  show_step_panels(*this, parse_panel(step.show));
}

void App::follow_lesson() {
  count_lesson_time();
  judge_exercise_if_saved();
  if (lessons.pending.empty())
    return;
  const std::string asked = std::move(lessons.pending);
  lessons.pending.clear();
  if (!open_lesson(asked))
    messages.status = "Lesson not opened: " + lessons.problem;
}

void App::count_lesson_time() {
  const auto now = std::chrono::steady_clock::now();
  const auto since = lessons.counted_until;
  lessons.counted_until = now;
  if (!lessons.lesson || since == std::chrono::steady_clock::time_point{})
    return;
  lessons.progress[lessons.id].seconds +=
      std::min(60.0, std::chrono::duration<double>(now - since).count());
}

void App::judge_exercise_if_saved() {
  const LessonStep* step = lessons.current();
  const RunResult* result = step && step->exercise ? result_on_screen() : nullptr;
  if (!result || results.arrivals == lessons.exercise_judged ||
      result->kernel_id != step_kernel_id(*step))
    return;
  // On a GPU the measured figures judge it (its outputs checked), not the model that comes first.
  if (source_measures() && !result->timing)
    return;
  // The copy as the step opened is a look, not a try: only a save is the learner's answer. A
  // text judged before (the template figured again when a recording or the block changes, a save
  // that changed nothing) is judged again, and is no new try.
  const bool a_try = lessons.exercise_judged != 0 && file.hash != lessons.exercise_text_judged;
  lessons.exercise_judged = results.arrivals;
  lessons.exercise_text_judged = file.hash;
  check_lesson_answer(a_try);
}

void LessonProgress::met(int step, const std::string& measured_on) {
  done.insert(step);
  if (measured_on.empty())
    right_modelled.insert(step);
  else
    right_measured[step] = measured_on;
}

void LessonProgress::tried(int step, bool right, const std::string& measured_on) {
  if (!right) { // a copy met at its first try and broken later was still met at its first try
    missed.insert(step);
    return;
  }
  if (!done.contains(step) && !missed.contains(step))
    first_try.insert(step);
  met(step, measured_on);
}

void App::check_lesson_answer(bool a_try) {
  const LessonStep* step = lessons.current();
  if (!step || step->kind == QuestionKind::none)
    return;
  lessons.problem.clear();
  const std::string answer =
      step->kind == QuestionKind::choice ? lessons.chosen : lessons.typed.data();
  if (asks_before_showing(*step) && answer.empty()) { // not a try: nothing was answered
    lessons.problem =
        step->kind == QuestionKind::choice ? "Choose an answer first." : "Type your answer first.";
    return;
  }
  std::string measured_on; // the GPU whose measurement judged it; "" for the models' figures
  try {
    if (step->playground) {
      lessons.verdict = step->kind == QuestionKind::until
                            ? judge_playground(*step, playground_of(choices.playground))
                            : judge_playground_answer(*step, answer, step_playground(*step));
    } else {
      const RunResult* result = result_on_screen();
      if (!result) {
        lessons.problem = "The figures of the launch on screen are still being computed; press "
                          "Check again in a moment.";
        return;
      }
      measured_on = measuring_gpu(*result);
      if (const std::string kernel = step_kernel_id(*step); result->kernel_id != kernel) {
        lessons.verdict = LessonVerdict{false, "Not yet: this step is about " + kernel +
                                                   ", and the panels show " + result->kernel_id +
                                                   "; Restart step goes back to it."};
      } else if (step->kind == QuestionKind::until) {
        const KernelRequest now{find_kernel(result->kernel_id), result->params,
                                result->launch.block};
        const auto model_with = [&](const Params& params) {
          return model_kernel(KernelRequest{now.kernel, params, now.block}, arch());
        };
        lessons.verdict = judge_launch(*step, *result, model_with);
      } else {
        lessons.verdict = judge_answer(*step, answer, *result);
      }
    }
  } catch (const Error& e) {
    lessons.problem = e.what();
    return;
  }
  ++lessons.verdicts_made;
  LessonProgress& progress = lessons.progress[lessons.id];
  if (lessons.verdict->right) {
    // An exercise missed before (`warplens lesson try` keeps its misses) is no first try.
    if (lessons.tries == 0 && !(step->exercise && progress.missed.contains(lessons.step)))
      progress.first_try.insert(lessons.step);
    lessons.revealed = true;
    progress.met(lessons.step, measured_on);
  } else if (a_try) {
    // A question asked again and missed: the first-try count follows the last asking. An
    // exercise's later save that misses takes nothing back: its first try was what it was.
    if (lessons.tries == 0 && !step->exercise)
      progress.first_try.erase(lessons.step);
    progress.missed.insert(lessons.step);
    ++lessons.tries;
  }
}

void App::reveal_lesson_answer() {
  const LessonStep* step = lessons.current();
  if (!step || step->kind == QuestionKind::none)
    return;
  lessons.revealed = true;
  lessons.problem.clear();
  ++lessons.verdicts_made;
  lessons.chosen.clear(); // a wrong pick is not left looking chosen beside the answer
  lessons.progress[lessons.id].first_try.erase(lessons.step); // shown is not answered
  const std::string why = step->why.empty() ? "" : " " + step->why;
  if (step->kind == QuestionKind::until && step->exercise) {
    // The learner's copy stays on screen, theirs to change: the solution is a file to read.
    lessons.verdict = LessonVerdict{false, "A solution: " + solution_text(*step) + "." + why};
    return;
  }
  if (step->kind == QuestionKind::until) {
    // The solution goes on screen: its figures follow, and Check says it holds.
    if (step->playground)
      write_field(step->solution_expression, choices.playground.expression);
    else
      for (const StepLaunch solved = step_launch(*lessons.lesson, *step, choices.arches, true);
           const auto& [name, value] : solved.request.params)
        choices.params[name] = value;
    if (!step->playground && !step->solution_block.empty())
      choices.set_block(parse_block(step->solution_block));
    lessons.verdict =
        LessonVerdict{false, "A solution: " + solution_text(*step) +
                                 ", now on screen; the panels show its figures." + why};
    return;
  }
  std::optional<FigureReading> truth;
  if (step->playground)
    truth = read_playground_figure(step->answer.key, step_playground(*step));
  else if (const RunResult* result = result_on_screen(); result && step->answer.key == "limiter")
    truth = FigureReading{0, limiters_text(*result), ""};
  else if (result)
    truth = read_figure(step->answer, *result);
  if (!truth) {
    lessons.revealed = false;
    lessons.problem = "The figures of the launch on screen are still being computed; try again in "
                      "a moment.";
    return;
  }
  // A limiter's text ends its own sentence.
  const std::string ending =
      truth->source.empty() ? (truth->text.ends_with('.') ? "" : ".") : " (" + truth->source + ").";
  lessons.verdict = LessonVerdict{false, "The answer: " + truth->text + ending + why};
}

bool App::lesson_veils(Panel panel) const {
  const LessonStep* step = lessons.current();
  if (!step || !asks_before_showing(*step) || lessons.revealed)
    return false;
  // The lesson itself holds no answer; the playground is the learner's own tool in a launch step,
  // and in a playground step it hides its figures alone (its fields are the question); the Launch
  // panel covers its kernel's note alone (its fields are the launch).
  return panel != Panel::lessons && (panel != Panel::playground || step->playground);
}

} // namespace wl::viz
