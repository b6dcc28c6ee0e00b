#pragma once
// A lesson's answers, read where the learner sees them: a step's launch resolved (its kernel,
// parameters, block and preset), a figure's value read from the launch's result (the launch's
// own through the figure table, measured where the result holds a measurement, else the
// model's; a site's from the model's prediction of that site; the limiter from the occupancy
// model), and the learner's answer judged against it. `check_lesson` plays every step with the
// models, so a lesson that names a kernel, parameter, figure or site that does not exist, or a
// condition its solution does not meet, is refused with its line.

#include "lesson/lesson.h"
#include "model/arch.h"
#include "model/index_expression.h"
#include "model/kernel_request.h"
#include "model/run_result.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wl {

// The id of a step's kernel: a bundled kernel's as written; a kernel file's ("mine.cu",
// "mine.cu:kernel") its kernel's, the file's kernels added at run time once (kernel_file_id: a
// save that does not compile leaves the step its last good version). Throws UsageError for a file
// it cannot use.
std::string step_kernel_id(const LessonStep& step);

struct StepLaunch {
  KernelRequest request;
  Arch arch;
};
// The step's launch, with a solution's parameters and block on top where `with_solution`.
// Throws UsageError "FILE:LINE: ..." for what does not resolve.
StepLaunch step_launch(const Lesson& lesson, const LessonStep& step,
                       const std::vector<Arch>& presets, bool with_solution = false);
// Every launch the lessons' steps make on a bundled kernel (their parameters and blocks, and each
// `until` step's solution), each once: what model mode shows while they are followed, and what
// `warplens record` measures for them. Steps on kernel files and playgrounds are left out.
std::vector<KernelRequest> lesson_launches(const std::vector<Lesson>& lessons,
                                           const std::vector<Arch>& presets);
// The step's playground, with the solution's expression where `with_solution`.
IndexPlayground step_playground(const LessonStep& step, bool with_solution = false);

// A figure's value in a result, written as the panels write it, and where it comes from.
struct FigureReading {
  double value = 0;
  std::string text;   // "4.00 sectors"
  std::string source; // "the model", "measured on NVIDIA H100 80GB HBM3"
};
// `source` names the result's origin when it is a measurement ("recorded on ..." for the bundled
// recording); nullopt where the result has no such figure (or no such site).
std::optional<FigureReading> read_figure(const FigureRef& figure, const RunResult& result,
                                         const std::string& measured_source = "");
// The keys of the figures a site of this memory space has (a global site has no wavefronts, a
// shared one no sectors); whether it has one: site_has (report/figures.h).
const std::vector<std::string>& site_figure_keys(MemorySpace space);
// The same figure in the playground's warp (sectors_per_request, wavefronts_per_request,
// conflict_degree, ...).
std::optional<FigureReading> read_playground_figure(const std::string& key,
                                                    const IndexPlayground& playground);
// The figures the playground's warp has in its memory space, by name.
std::vector<std::string> playground_figure_keys(const IndexPlayground& playground);
// The resources that limit the launch's occupancy, as choices name them ("registers").
std::vector<std::string> limiter_names(const RunResult& result);

struct LessonVerdict {
  bool right = false;
  std::string says; // one paragraph: right or not, the figure with its source, why or the hint
};

// The GPU whose measurement a result's figures are ("NVIDIA H200"): "" for the models' figures
// and for a recording's (measured elsewhere, of code that may not be the learner's).
std::string measuring_gpu(const RunResult& result);

// "1,048,576", "4.0", " 8 " -> the number a learner typed; nullopt for anything else.
std::optional<double> typed_number(std::string text);

// A choice as the learner reads it: a lesson file writes it as one word ("shared_memory"), shown
// and judged in words ("shared memory").
std::string choice_in_words(std::string choice);

// A typed number against the figure (within the step's percentage), or a choice.
LessonVerdict judge_answer(const LessonStep& step, const std::string& typed,
                           const RunResult& result, const std::string& measured_source = "");
// A typed number against the playground's figure (a playground step's `answer`).
LessonVerdict judge_playground_answer(const LessonStep& step, const std::string& typed,
                                      const IndexPlayground& playground);
// Each condition's figure as this result reads it, in words ("sectors per request of "line 20:
// global load, 4 B" is 4.00 (the model), the outputs were verified (...)"): a goal's `of every`
// read site by site.
std::string conditions_read(const std::vector<Condition>& conditions, const RunResult& result);
// Whether the launch now meets the step's `until`; with `least`, also that no smaller value of
// that parameter would (`model_with` models the launch with other parameters).
LessonVerdict judge_launch(const LessonStep& step, const RunResult& now,
                           const std::function<RunResult(const Params&)>& model_with);
// Whether the playground as the learner left it meets the step's `until`.
LessonVerdict judge_playground(const LessonStep& step, const IndexPlayground& now);

// Every step played with the models on its presets: each launch resolves, each figure and site
// exists, each answer has a value, each choice question's answer is among its choices, each
// solution meets its condition and the step's own launch does not. One line per problem
// ("FILE:LINE: ..."); none when the lesson is sound.
std::vector<std::string> check_lesson(const Lesson& lesson, const std::vector<Arch>& presets);

// A lesson file read and played: the lesson where it has no problem, else every problem in the
// file's order, its lines' own (parse_lesson) and what the models find in the steps whose lines
// are sound, so a teacher meets them all in one pass. Throws UsageError where the file cannot be
// read or has no title.
struct CheckedLessonFile {
  std::optional<Lesson> lesson;
  std::vector<std::string> problems;
};
CheckedLessonFile check_lesson_file(const std::filesystem::path& file,
                                    const std::vector<Arch>& presets);
// Each question's answer as the models give it, for the teacher who wrote them: "LINE: QUESTION
// -> 4.00 sectors (the model)"; a step whose launch does not resolve says why instead.
std::vector<std::string> lesson_answers(const Lesson& lesson, const std::vector<Arch>& presets);

// Each question of a lesson asked again of measured figures: the answer a learner who reasons
// as the models do gives (the models' value, or the limiter they name) judged against the
// figures `measure` brings for the step's launch (a GPU run with its per-site pass, or the GUI's
// model mode with the recording); an `until` step's own launch must still fail and its
// solution still hold. Playground steps measure nothing and are left out.
struct MeasuredAnswer {
  int line = 0; // the question's `ask`
  std::string ask;
  std::string modelled, measured; // each figure's text and source
  bool holds = false;
};
std::vector<MeasuredAnswer>
answers_measured(const Lesson& lesson, const std::vector<Arch>& presets,
                 const std::function<RunResult(const StepLaunch&)>& measure);

} // namespace wl
