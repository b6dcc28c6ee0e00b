#pragma once
// A lesson: steps that each set up a launch (or the Index playground), ask the learner something
// before showing it, and reveal the figure with why. A lesson is a text file a teacher writes
// (assets/lessons/*.lesson; the manual's "For teachers" has the format and a whole lesson), one
// line per instruction, and its answers are never written in it: each is a figure of the figure
// table (report/figures.h), of the launch or of one of its sites, or the occupancy limiter, read
// from the launch's result when the learner answers.
//
//   lesson TITLE                      the first line
//   about TEXT                        the lesson's introduction (any number)
//   arch ID                           the presets its steps model on (default h100)
//   step TITLE                        a step; what follows belongs to it
//   kernel ID                         the step's launch: a bundled kernel,
//   param NAME=VALUE                  its parameters (any number),
//   block BLOCK                       and block ("256", "32x8")
//   playground EXPRESSION             or the Index playground with this index,
//   swizzle EXPRESSION                its swizzle of i,
//   element BYTES                     the element size (1, 2, 4, 8, 16),
//   space global|shared               and the memory (block takes the playground's block)
//   show PANEL                        the panel to look at (a panel key: global_memory, ...)
//   say TEXT                          what the step tells (any number)
//   ask TEXT                          the question, asked before the answer is shown
//   answer FIGURE [of "SITE"]         a number: the figure's value, or the site's
//   answer limiter                    a choice among the resources that limit occupancy
//   choices A B C ...                 the answers offered (a choice question)
//   within PERCENT                    how close a typed number must be (default 1 %)
//   exercise TEMPLATE.cu[:KERNEL]     the step's launch: a kernel file beside the lesson that
//                                     the learner copies to their folder and edits (exercise.h)
//   until FIGURE [of "SITE"] OP NUMBER [and ...]   change the launch until this holds (OP: =
//                                     != < <= > >=); `of every global load` (global or shared,
//                                     then load, store or access for both) holds at each such
//                                     site; `verified` holds where the outputs were checked right
//   least PARAM                       ... with the least value of PARAM that makes it hold
//   solution param NAME=VALUE | solution block BLOCK | solution playground EXPRESSION
//   solution file SOLVED.cu           a change that meets `until`, for `warplens lesson check`
//                                     (an exercise's: its template solved, beside the lesson)
//   hint TEXT                         shown after a wrong try
//   why TEXT                          shown with the answer
//   # a comment
//
// Every problem is a UsageError "FILE:LINE: what is wrong; what is allowed".

#include "base/error.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace wl {

inline constexpr std::size_t kLargestLessonFile = 1 << 20; // bytes
inline constexpr std::size_t kLongestLessonLine = 2000;    // characters
// Checking a step costs milliseconds (its launch modelled): this bounds a check to seconds.
inline constexpr std::size_t kMostLessonSteps = 500;

// A figure of the launch, or of one of its sites (`sectors_per_request of "load a"`), or of each
// site of a kind (`of every global load`: every, "global load"). The key "verified" is the
// launch's outputs checked right (in a condition alone).
struct FigureRef {
  std::string key;
  std::string site = {};  // "" for the launch's own figure
  std::string every = {}; // "global", "global load", "shared store", ...; "" for one site or none
};

enum class Comparison { equal, not_equal, less, less_equal, greater, greater_equal };
const char* comparison_text(Comparison comparison); // "=", "<=", ...

struct Condition {
  FigureRef figure;
  Comparison comparison = Comparison::equal;
  double value = 0;
};

enum class QuestionKind { none, number, choice, until };

// The Index playground as a step sets it up.
struct PlaygroundSetup {
  std::string expression;
  std::string swizzle;
  int element_bytes = 4;
  bool shared = false;
};

struct LessonStep {
  int line = 0; // of its `step`
  std::string title;
  std::string kernel; // "" in a playground step
  std::vector<std::string> params;
  std::string block;
  // Where each was written, for a refusal's line.
  int kernel_line = 0, block_line = 0, arch_line = 0, playground_line = 0, choices_line = 0,
      within_line = 0;
  std::vector<int> param_lines; // one per param
  std::string arch;
  std::optional<PlaygroundSetup> playground;
  std::string show; // a panel key, or ""
  std::vector<std::string> say;

  QuestionKind kind = QuestionKind::none;
  int ask_line = 0;
  std::string ask;
  FigureRef answer; // number and choice questions; key "limiter" for the occupancy limiter
  int answer_line = 0;
  std::vector<std::string> choices;
  double within_percent = 1;
  std::vector<Condition> until;
  int until_line = 0;
  std::string least; // a parameter
  int least_line = 0;
  bool exercise = false; // `kernel` is a template the learner copies and edits
  std::vector<std::string> solution_params;
  std::string solution_block;
  std::string solution_kernel; // an exercise's solved file
  std::string solution_expression;
  int solution_line = 0;
  std::string hint;
  std::string why;
};

struct Lesson {
  std::string file; // as named, for messages
  std::string title;
  std::vector<std::string> about;
  std::string arch = "h100";
  int arch_line = 0; // 0: the default
  std::vector<LessonStep> steps;

  int questions() const;
  // How many of the steps `done` names are questions of this lesson: a settings file's list may
  // name steps the lesson does not have (it was edited, or the file was), which count for none.
  int answered_right(const std::set<int>& done) const;
};

// A lesson file with problems: the first in its message (one line, as every error), all of them
// for `lesson check`, which names each on its line. `sound` is the lesson with only the steps
// none of whose lines has a problem (none when its title or opening lines have one), so
// `lesson check` can play those with the models in the same pass.
struct LessonFileError : UsageError {
  LessonFileError(std::vector<std::string> all, std::optional<Lesson> sound);
  std::vector<std::string> problems;
  std::optional<Lesson> sound;
};

// The lesson's own rules: every line understood, a step's parts in place, a question with its
// answer. Whether each kernel, parameter, figure and site exists is `check_lesson`'s.
Lesson parse_lesson(const std::string& text, const std::string& file);
// Reads a file (a regular file of at most kLargestLessonFile bytes) and parses it.
Lesson load_lesson(const std::filesystem::path& file);

// A lesson by name ("coalescing" finds assets/lessons/*-coalescing.lesson or coalescing.lesson)
// or by path (anything with a '/' or ending in .lesson).
std::filesystem::path find_lesson(const std::string& name_or_path);
// The bundled lessons, in course order (their file names start with their place: 01-...).
std::vector<std::filesystem::path> bundled_lessons();

} // namespace wl
