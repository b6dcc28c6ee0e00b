#include "lesson/lesson.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_file.h"
#include "base/text_format.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "report/panel_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

namespace wl {

namespace {

// One line of a lesson being read: its verb and the rest, and where it is for messages.
struct LessonLine {
  std::string file;
  int number = 0;
  std::string verb;
  std::string rest;

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(file + ":" + std::to_string(number) + ": " + what);
  }
  const std::string& text(const char* what) const {
    if (rest.empty())
      fail(verb + " needs " + what);
    return rest;
  }
};

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos)
    return "";
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

bool is_word(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == '-' ||
           c == '.';
  });
}

// "FIGURE" or `FIGURE of "SITE"`; what follows it is left in `rest`.
FigureRef read_figure(const LessonLine& line, std::string_view& rest) {
  rest = rest.substr(std::min(rest.size(), rest.find_first_not_of(' ')));
  const std::size_t end = std::min(rest.size(), rest.find(' '));
  FigureRef figure{std::string(rest.substr(0, end)), ""};
  if (!is_word(figure.key))
    line.fail(in_quotes(figure.key, 40) +
              " is not a figure key; write one as the figure table names it, e.g. "
              "sectors_per_request");
  rest = rest.substr(end);
  const std::string after = trimmed(rest);
  if (after.starts_with("of every ")) {
    // "of every SPACE [OP]": the words up to a comparison or the end.
    std::istringstream words(after.substr(9));
    std::string space, op;
    words >> space;
    if (space != "global" && space != "shared")
      line.fail("of every '" + clip(space, 20) +
                "': allowed of every global or of every "
                "shared, then load, store or access");
    words >> op;
    if (op != "load" && op != "store" && op != "access")
      line.fail("of every " + space + " '" + clip(op, 20) + "': allowed of every " + space +
                " load, store or access");
    figure.every = op == "access" ? space : space + " " + op;
    const std::string written = space + " " + op;
    rest = rest.substr(rest.find(written) + written.size());
    return figure;
  }
  if (after.starts_with("of ")) {
    std::string_view site = std::string_view(rest).substr(rest.find("of ") + 3);
    site = site.substr(std::min(site.size(), site.find_first_not_of(' ')));
    if (site.empty() || site.front() != '"')
      line.fail("of needs a site's name in quotes: of \"load a\"");
    const std::size_t close = site.find('"', 1);
    if (close == std::string_view::npos)
      line.fail("the site's name has no closing quote");
    figure.site = std::string(site.substr(1, close - 1));
    if (figure.site.empty())
      line.fail("the site's name is empty");
    rest = site.substr(close + 1);
  }
  return figure;
}

double read_number(const LessonLine& line, std::string_view text, const char* what) {
  const std::string t = trimmed(text);
  double value = 0;
  const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || error != std::errc() || end != t.data() + t.size() || !std::isfinite(value))
    line.fail(std::string(what) + " '" + clip(t, 40) + "' is not a number");
  return value;
}

Condition read_condition(const LessonLine& line, std::string_view text) {
  Condition condition;
  if (trimmed(text) == "verified") // the outputs checked right: no figure, no comparison
    return {FigureRef{"verified"}, Comparison::equal, 1};
  condition.figure = read_figure(line, text);
  const std::string rest = trimmed(text);
  if (rest.starts_with("=="))
    line.fail("'==' is not a comparison here: write = (allowed = != < <= > >=)");
  static const std::pair<const char*, Comparison> kComparisons[] = {
      {"<=", Comparison::less_equal}, {">=", Comparison::greater_equal},
      {"!=", Comparison::not_equal},  {"<", Comparison::less},
      {">", Comparison::greater},     {"=", Comparison::equal}};
  for (const auto& [written, comparison] : kComparisons)
    if (rest.starts_with(written)) {
      condition.comparison = comparison;
      condition.value = read_number(line, std::string_view(rest).substr(std::strlen(written)),
                                    "the value compared with");
      return condition;
    }
  line.fail("until needs a comparison after the figure: = != < <= > >= and a number, e.g. "
            "wavefronts_per_request of \"read column\" = 1");
}

std::vector<Condition> read_conditions(const LessonLine& line) {
  std::vector<Condition> conditions;
  std::string_view rest = line.text("a condition, e.g. wavefronts_per_request = 1");
  for (std::size_t and_at; (and_at = rest.find(" and ")) != std::string_view::npos;) {
    conditions.push_back(read_condition(line, rest.substr(0, and_at)));
    rest = rest.substr(and_at + 5);
  }
  conditions.push_back(read_condition(line, rest));
  return conditions;
}

std::string read_word(const LessonLine& line, const char* what) {
  const std::string& word = line.text(what);
  if (!is_word(word))
    line.fail(line.verb + " takes one word (" + what + "), not '" + clip(word, 40) + "'");
  return word;
}

std::string read_assignment(const LessonLine& line, const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size() ||
      text.find(' ') != std::string::npos)
    line.fail(in_quotes(text, 40) + " is not NAME=VALUE (a kernel parameter, e.g. pad=1)");
  return text;
}

// What is read into a step, verb by verb.
class LessonReader {
public:
  explicit LessonReader(std::string file) { m_lesson.file = std::move(file); }

  void read(const LessonLine& line) {
    if (line.verb == "lesson")
      return lesson_title(line);
    if (m_lesson.title.empty())
      line.fail("a lesson starts with its title: lesson TITLE");
    if (line.verb == "about" && m_lesson.steps.empty())
      return m_lesson.about.push_back(line.text("the introduction's text"));
    if (line.verb == "arch" && m_lesson.steps.empty()) {
      if (m_lesson.arch_line)
        line.fail("arch is given twice (first on line " + std::to_string(m_lesson.arch_line) + ")");
      m_lesson.arch_line = line.number;
      return void(m_lesson.arch = read_word(line, "a preset id"));
    }
    if (line.verb == "step")
      return start_step(line);
    if (m_lesson.steps.empty())
      line.fail(in_quotes(line.verb, 30) +
                " belongs to a step; start one with: step TITLE (before it: about, arch)");
    step_line(line, m_lesson.steps.back());
  }

  // A line of the current step was refused: the step's checks leave out what it would have given
  // (a bad exercise line is said once, not again as "a step without a launch").
  void refused(const std::string& verb) { m_refused[current_step()].insert(verb); }

  bool has_title() const { return !m_lesson.title.empty(); }
  bool full() const { return m_full; } // a step past the most a lesson holds was met
  // The step the last line read went to: -1 for the lesson's opening lines.
  int current_step() const { return static_cast<int>(m_lesson.steps.size()) - 1; }

  // The lesson, once every step is checked; each step's problem joins `problems`, and its index
  // joins `broken`.
  Lesson finish(std::vector<std::string>& problems, std::set<int>& broken) {
    if (m_lesson.title.empty())
      throw UsageError(m_lesson.file + ": an empty lesson; it starts with: lesson TITLE");
    if (m_lesson.steps.empty())
      throw UsageError(m_lesson.file + ": the lesson has no step; add one: step TITLE");
    std::map<std::string, int> copies; // an exercise's copy by its name, to its step's line
    for (LessonStep& step : m_lesson.steps) {
      try {
        check_step(step, m_refused[static_cast<int>(&step - m_lesson.steps.data())]);
        if (step.exercise) {
          const std::string name =
              std::filesystem::path(kernel_file_path(step.kernel)).filename().string();
          if (const auto [first, added] = copies.emplace(name, step.kernel_line); !added)
            LessonLine{m_lesson.file, step.kernel_line, "exercise", ""}.fail(
                "a second exercise named " + name + " (the first on line " +
                std::to_string(first->second) +
                "): the learner's copies are named by the file, so the two would be one; rename "
                "one");
        }
      } catch (const UsageError& e) {
        problems.push_back(e.what());
        broken.insert(static_cast<int>(&step - m_lesson.steps.data()));
      }
      step.kind = step.until_line         ? QuestionKind::until
                  : step.answer_line == 0 ? QuestionKind::none
                  : step.choices.empty()  ? QuestionKind::number
                                          : QuestionKind::choice;
    }
    return std::move(m_lesson);
  }

private:
  void lesson_title(const LessonLine& line) {
    if (!m_lesson.title.empty())
      line.fail("a second lesson line; a file holds one lesson");
    m_lesson.title = line.text("a title");
  }

  void start_step(const LessonLine& line) {
    if (m_lesson.steps.size() == kMostLessonSteps) {
      m_full = true;
      line.fail("a step past the " + std::to_string(kMostLessonSteps) +
                "th; a lesson holds at most " + std::to_string(kMostLessonSteps) +
                " steps: split it (the lines after this one are not read)");
    }
    LessonStep& step = m_lesson.steps.emplace_back(); // before its title's problem: the step's
    step.line = line.number;                          // lines belong to it, not the one before
    step.title = line.text("a title");
  }

  using StepVerb = std::function<void(const LessonLine&, LessonStep&)>;
  void step_line(const LessonLine& line, LessonStep& step) {
    static const std::map<std::string, StepVerb> kVerbs = step_verbs();
    const auto verb = kVerbs.find(line.verb);
    if (line.verb == "about")
      line.fail("about belongs before the first step (the lesson's introduction); in a step, "
                "write say TEXT");
    if (verb == kVerbs.end()) {
      static const std::vector<std::string> kLineWords = {
          "lesson",  "about",   "arch",  "step",     "kernel", "param", "block",   "playground",
          "swizzle", "element", "space", "show",     "say",    "ask",   "answer",  "choices",
          "within",  "until",   "least", "solution", "hint",   "why",   "exercise"};
      line.fail(in_quotes(line.verb, 30) + " is not a lesson line" +
                did_you_mean(line.verb, kLineWords) + "; allowed: " + joined(kLineWords, ", ") +
                ", # a comment");
    }
    verb->second(line, step);
  }

  // A kernel's id, or a kernel file's path with its kernel after a colon (mine.cu:kernel).
  static std::string kernel_word(const LessonLine& line) {
    constexpr const char* what = "a kernel id, e.g. coalescing/stride, or a kernel file, e.g. "
                                 "mine.cu or mine.cu:kernel";
    std::string word = line.text(what);
    // A path with a space in it, in quotes: kernel "my tile.cu".
    if (word.size() > 2 && word.front() == '"' && word.back() == '"' &&
        word.find('"', 1) == word.size() - 1 && word.find(".cu") != std::string::npos)
      return word.substr(1, word.size() - 2);
    const std::size_t colon = word.find(".cu:");
    if (colon == std::string::npos || !is_word(word.substr(colon + 4)))
      return read_word(line, what);
    if (!is_word(word.substr(0, colon + 3)))
      line.fail(line.verb + " takes one word (" + what + "), not '" + clip(word, 40) + "'");
    return word;
  }

  // A kernel file ("mine.cu", "mine.cu:kernel") as a path from the lesson's own folder, where a
  // teacher keeps the files a lesson asks about; a bundled kernel's id as it is.
  static std::string lesson_kernel(const LessonLine& line, const std::string& word) {
    if (!word.ends_with(".cu") && word.find(".cu:") == std::string::npos)
      return word;
    const std::filesystem::path path(word);
    return path.is_absolute() ? word
                              : (std::filesystem::path(line.file).parent_path() / path).string();
  }

  // A step's launch is one of a kernel, an exercise's file or the playground.
  static void one_launch(const LessonLine& line, const LessonStep& step) {
    if (step.exercise || (!step.kernel.empty() && line.verb == "exercise"))
      line.fail("give a step either kernel (a launch to look at) or exercise (a file the learner "
                "changes), not both, and each once");
    once(line, !step.kernel.empty() || step.playground);
  }

  static void once(const LessonLine& line, bool already) {
    if (already)
      line.fail(line.verb + " is given twice in this step");
  }

  // A step's question has one answer: a figure (answer) or a goal (until), once.
  static void one_answer(const LessonLine& line, const LessonStep& step) {
    if (step.answer_line != 0 || step.until_line != 0)
      line.fail(line.verb + ": the step's question is already answered on line " +
                std::to_string(step.answer_line + step.until_line) +
                "; a step has one answer FIGURE or one until CONDITION" +
                (step.exercise ? " (an exercise's is its until goal)" : ""));
  }

  static PlaygroundSetup& playground(const LessonLine& line, LessonStep& step) {
    if (!step.playground)
      line.fail(line.verb + " belongs to a playground step: write playground EXPRESSION first");
    return *step.playground;
  }

  static std::map<std::string, StepVerb> step_verbs() {
    std::map<std::string, StepVerb> verbs;
    verbs["kernel"] = [](const LessonLine& l, LessonStep& s) {
      one_launch(l, s);
      s.kernel = lesson_kernel(l, kernel_word(l));
      s.kernel_line = l.number;
    };
    verbs["exercise"] = [](const LessonLine& l, LessonStep& s) {
      one_launch(l, s);
      const std::string word = kernel_word(l);
      if (!word.ends_with(".cu") && word.find(".cu:") == std::string::npos)
        l.fail("exercise takes a kernel file beside the lesson, the template the learner copies "
               "(e.g. exercise strided_copy.cu), not '" +
               clip(word, 40) + "'");
      s.kernel = lesson_kernel(l, word);
      s.kernel_line = l.number;
      s.exercise = true;
    };
    verbs["param"] = [](const LessonLine& l, LessonStep& s) {
      s.params.push_back(read_assignment(l, l.text("NAME=VALUE")));
      s.param_lines.push_back(l.number);
    };
    verbs["block"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.block.empty());
      s.block = read_word(l, "a block, e.g. 256 or 32x8");
      s.block_line = l.number;
    };
    verbs["arch"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.arch.empty());
      s.arch = read_word(l, "a preset id");
      s.arch_line = l.number;
    };
    verbs["playground"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.kernel.empty() || s.playground);
      s.playground = PlaygroundSetup{l.text("an index expression"), "", 4, false};
      s.playground_line = l.number;
    };
    verbs["swizzle"] = [](const LessonLine& l, LessonStep& s) {
      playground(l, s).swizzle = l.text("an expression of i");
    };
    verbs["element"] = [](const LessonLine& l, LessonStep& s) {
      const double bytes = read_number(l, l.text("the element's bytes"), "element");
      if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16)
        l.fail("element " + l.rest + ": allowed 1, 2, 4, 8 or 16 bytes");
      playground(l, s).element_bytes = static_cast<int>(bytes);
    };
    verbs["space"] = [](const LessonLine& l, LessonStep& s) {
      const std::string& space = l.text("global or shared");
      if (space != "global" && space != "shared")
        l.fail("space '" + clip(space, 30) + "': allowed global or shared");
      playground(l, s).shared = space == "shared";
    };
    verbs["show"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.show.empty());
      s.show = read_word(l, "a panel key, e.g. global");
      if (!parse_panel(s.show))
        l.fail("show '" + clip(s.show, 40) + "' is not a panel" +
               did_you_mean(s.show, panel_keys()) + "; allowed " + panel_keys_listed());
    };
    verbs["say"] = [](const LessonLine& l, LessonStep& s) { s.say.push_back(l.text("a text")); };
    verbs["ask"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.ask.empty());
      s.ask = l.text("the question");
      s.ask_line = l.number;
    };
    verbs["answer"] = [](const LessonLine& l, LessonStep& s) {
      one_answer(l, s);
      std::string_view rest = l.text("a figure key, e.g. sectors_per_request of \"load a\"");
      s.answer = read_figure(l, rest);
      if (!trimmed(rest).empty())
        l.fail(in_quotes(trimmed(rest), 40) + " after the answer's figure; write answer FIGURE "
                                              "[of \"SITE\"]");
      s.answer_line = l.number;
    };
    verbs["choices"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.choices.empty());
      std::istringstream words(l.text("the answers offered"));
      for (std::string word; words >> word;)
        s.choices.push_back(word);
      s.choices_line = l.number;
      if (s.choices.size() < 2 || s.choices.size() > 8)
        l.fail("choices offers 2 to 8 answers, separated by spaces");
      for (std::size_t i = 1; i < s.choices.size(); ++i)
        if (std::find(s.choices.begin(), s.choices.begin() + static_cast<std::ptrdiff_t>(i),
                      s.choices[i]) != s.choices.begin() + static_cast<std::ptrdiff_t>(i))
          l.fail("choices offers " + clip(s.choices[i], 30) + " twice; each answer once");
    };
    verbs["within"] = [](const LessonLine& l, LessonStep& s) {
      once(l, s.within_line != 0);
      s.within_line = l.number;
      std::string text = l.text("a percentage");
      if (text.ends_with("%"))
        text.pop_back();
      s.within_percent = read_number(l, text, "within");
      if (s.within_percent < 0 || s.within_percent > 50)
        l.fail("within " + l.rest + ": allowed 0 to 50 %");
    };
    verbs["until"] = [](const LessonLine& l, LessonStep& s) {
      one_answer(l, s);
      s.until = read_conditions(l);
      s.until_line = l.number;
    };
    verbs["least"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.least.empty());
      s.least = read_word(l, "a parameter's name");
      s.least_line = l.number;
    };
    verbs["solution"] = [](const LessonLine& l, LessonStep& s) { read_solution(l, s); };
    verbs["hint"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.hint.empty());
      s.hint = l.text("a hint");
    };
    verbs["why"] = [](const LessonLine& l, LessonStep& s) {
      once(l, !s.why.empty());
      s.why = l.text("the reason");
    };
    return verbs;
  }

  static void read_solution(const LessonLine& line, LessonStep& step) {
    const std::string& text = line.text("param NAME=VALUE, block BLOCK or playground EXPRESSION");
    step.solution_line = line.number;
    if (text.starts_with("param ")) {
      const std::string param = read_assignment(line, trimmed(text.substr(6)));
      const std::string name = param.substr(0, param.find('=') + 1);
      for (const std::string& given : step.solution_params)
        if (given.starts_with(name))
          line.fail("solution param " + name.substr(0, name.size() - 1) +
                    " is given twice in this step");
      return step.solution_params.push_back(param);
    }
    if (text.starts_with("block ")) {
      once(line, !step.solution_block.empty());
      return void(step.solution_block = trimmed(text.substr(6)));
    }
    if (text.starts_with("playground ")) {
      once(line, !step.solution_expression.empty());
      return void(step.solution_expression = trimmed(text.substr(11)));
    }
    if (text.starts_with("file ")) {
      once(line, !step.solution_kernel.empty());
      const LessonLine file{line.file, line.number, line.verb, trimmed(text.substr(5))};
      return void(step.solution_kernel = lesson_kernel(file, kernel_word(file)));
    }
    line.fail("solution takes param NAME=VALUE, block BLOCK, playground EXPRESSION or file "
              "SOLVED.cu");
  }

  // A step's parts in place: a launch or a playground, and a question with its answer.
  void check_step(const LessonStep& step, const std::set<std::string>& refused) const {
    const LessonLine at{m_lesson.file, step.line, "step", step.title};
    const auto said = [&](std::initializer_list<const char*> verbs) {
      return std::any_of(verbs.begin(), verbs.end(),
                         [&](const char* v) { return refused.contains(v); });
    };
    // A refused launch line is no "step without a launch"; the question's checks still run.
    const bool launch_refused = said({"kernel", "exercise", "playground"});
    if (step.kernel.empty() && !step.playground && !launch_refused)
      at.fail("the step '" + clip(step.title, 40) +
              "' has no launch: give it kernel ID or playground EXPRESSION");
    if (step.playground && !step.params.empty())
      at.fail("a playground step has no kernel parameters");
    const bool answered = step.answer_line || step.until_line || said({"answer", "until"});
    if (!step.ask.empty() && !answered)
      at.fail("the step asks but has no answer: add answer FIGURE or until CONDITION");
    if (step.ask.empty() && answered && !said({"ask"}))
      at.fail(step.exercise ? "the exercise has a goal but asks nothing: add ask QUESTION (what "
                              "the learner is to change)"
                            : "the step has an answer but asks nothing: add ask QUESTION");
    if (!step.choices.empty() && step.answer_line == 0 && !said({"answer"}))
      at.fail("choices need answer FIGURE (or answer limiter)");
    if (step.answer.key == "limiter" && step.choices.empty())
      at.fail("answer limiter is a choice: add choices, e.g. choices warps registers "
              "shared_memory blocks");
    if ((!step.least.empty() || step.solution_line) && step.until_line == 0 && !said({"until"}))
      at.fail("least and solution belong to a question answered by until CONDITION");
    if (step.until_line && step.solution_line == 0 && !said({"solution"}))
      at.fail("until needs a solution (a change that meets it), so that lesson check can "
              "prove the condition can be met");
    if (!step.solution_expression.empty() && !step.playground && !launch_refused)
      at.fail("solution playground belongs to a playground step");
    if (step.exercise && (step.until_line == 0 || step.solution_kernel.empty()) &&
        !said({"until", "solution"}))
      at.fail("an exercise is judged by until CONDITION and proven by solution file SOLVED.cu "
              "(its template solved), so that lesson check can show the goal can be met");
    if (!step.solution_kernel.empty() && !step.exercise && !launch_refused)
      at.fail("solution file belongs to an exercise step (exercise TEMPLATE.cu)");
    if (step.exercise && (step.answer_line || !step.least.empty() ||
                          !step.solution_params.empty() || !step.solution_block.empty()))
      at.fail("an exercise is judged by until and proven by solution file alone: answer, least "
              "and solution param or block have no meaning for the learner's own file");
    if (step.playground && !step.answer.site.empty())
      LessonLine{m_lesson.file, step.answer_line, "answer", ""}.fail(
          "the playground's access has no sites: write the figure alone, e.g. answer "
          "sectors_per_request");
    if (step.playground && std::any_of(step.until.begin(), step.until.end(),
                                       [](const Condition& c) { return !c.figure.site.empty(); }))
      LessonLine{m_lesson.file, step.until_line, "until", ""}.fail(
          "the playground's access has no sites: write the figure alone, e.g. until "
          "wavefronts_per_request = 1");
  }

  Lesson m_lesson;
  bool m_full = false;
  std::map<int, std::set<std::string>> m_refused; // by step: the verbs of its refused lines
};

} // namespace

const char* comparison_text(Comparison comparison) {
  switch (comparison) {
  case Comparison::equal:
    return "=";
  case Comparison::not_equal:
    return "!=";
  case Comparison::less:
    return "<";
  case Comparison::less_equal:
    return "<=";
  case Comparison::greater:
    return ">";
  case Comparison::greater_equal:
    return ">=";
  }
  return "?";
}

int Lesson::questions() const {
  return static_cast<int>(std::count_if(steps.begin(), steps.end(),
                                        [](const LessonStep& s) { return !s.ask.empty(); }));
}

int Lesson::answered_right(const std::set<int>& done) const {
  return static_cast<int>(std::count_if(done.begin(), done.end(), [&](int step) {
    return step >= 0 && step < static_cast<int>(steps.size()) &&
           !steps[static_cast<std::size_t>(step)].ask.empty();
  }));
}

LessonFileError::LessonFileError(std::vector<std::string> all, std::optional<Lesson> sound)
    : UsageError(all.size() == 1 ? all.front()
                                 : all.front() + " (and " + std::to_string(all.size() - 1) +
                                       " more problems; warplens lesson check names them all)"),
      problems(std::move(all)), sound(std::move(sound)) {}

namespace {

// The lesson without its broken steps; none when its opening lines (-1) are broken, which every
// step shares, or no step is left.
std::optional<Lesson> sound_part(std::optional<Lesson> lesson, const std::set<int>& broken) {
  if (!lesson || broken.contains(-1))
    return std::nullopt;
  std::vector<LessonStep> kept;
  for (std::size_t i = 0; i < lesson->steps.size(); ++i)
    if (!broken.contains(static_cast<int>(i)))
      kept.push_back(std::move(lesson->steps[i]));
  if (kept.empty())
    return std::nullopt;
  lesson->steps = std::move(kept);
  return lesson;
}

} // namespace

Lesson parse_lesson(const std::string& text, const std::string& file) {
  if (text.size() > kLargestLessonFile)
    throw UsageError(file + ": the lesson is over 1 MiB; split it");
  LessonReader reader(file);
  // A byte-order mark some editors write first is no part of the title line.
  std::istringstream lines(text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text);
  int number = 0;
  // Every line's problem, not the first alone: a teacher fixes them in one pass. Without its
  // title every line would fail, so the first problem there is the only one.
  std::vector<std::string> problems;
  std::set<int> broken; // the steps with a problem, -1 for the opening lines
  for (std::string raw; std::getline(lines, raw);) {
    ++number;
    try {
      const LessonLine at{file, number, "", ""};
      if (raw.size() > kLongestLessonLine)
        at.fail("a line of " + std::to_string(raw.size()) + " characters; at most " +
                std::to_string(kLongestLessonLine));
      std::string line = trimmed(raw);
      std::replace(line.begin(), line.end(), '\t', ' '); // a tab parts words as a space does
      if (has_control_characters(line))
        at.fail("a control character; a lesson is plain text");
      if (line.empty() || line.front() == '#')
        continue;
      const std::size_t space = line.find(' ');
      reader.read({file, number, line.substr(0, space),
                   space == std::string::npos ? "" : trimmed(line.substr(space + 1))});
    } catch (const UsageError& e) {
      problems.push_back(e.what());
      broken.insert(reader.current_step());
      const std::string line = trimmed(raw);
      reader.refused(line.substr(0, line.find_first_of(" \t")));
      if (!reader.has_title() || reader.full())
        break;
    }
  }
  if (!reader.has_title() && !problems.empty())
    throw UsageError(problems.front());
  std::optional<Lesson> lesson;
  try {
    lesson = reader.finish(problems, broken);
  } catch (const UsageError& e) { // no step: after the lines' own problems, which may be why
    problems.push_back(e.what());
  }
  if (!problems.empty())
    throw LessonFileError(std::move(problems), sound_part(std::move(lesson), broken));
  return std::move(*lesson);
}

Lesson load_lesson(const std::filesystem::path& file) {
  return parse_lesson(read_text_file(file, "lesson", "a text file of steps", kLargestLessonFile),
                      file.string());
}

std::vector<std::filesystem::path> bundled_lessons() {
  std::vector<std::filesystem::path> lessons;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(assets_dir() / "lessons", error))
    if (entry.path().extension() == ".lesson")
      lessons.push_back(entry.path());
  std::sort(lessons.begin(), lessons.end());
  return lessons;
}

std::filesystem::path find_lesson(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".lesson"))
    return name_or_path;
  std::string names;
  for (const std::filesystem::path& lesson : bundled_lessons()) {
    const std::string stem = lesson.stem().string();
    const std::size_t dash = stem.find('-');
    const std::string name = dash == std::string::npos ? stem : stem.substr(dash + 1);
    if (name == name_or_path || stem == name_or_path)
      return lesson;
    names += (names.empty() ? "" : ", ") + name;
  }
  throw UsageError("no lesson '" + clip(name_or_path, 60) + "'; the bundled lessons are " +
                   (names.empty() ? "none (no assets/lessons folder)" : names) +
                   ", or give a path to a .lesson file");
}

} // namespace wl
