#include "lesson/lesson_judge.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "kernel_file/file_kernel.h"
#include "model/access.h"
#include "model/block_text.h"
#include "model/model_kernel.h"
#include "registry.h"
#include "report/figures.h"
#include "report/panel_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

namespace wl {

const std::vector<std::string>& site_figure_keys(MemorySpace space) {
  const auto keys_of = [](MemorySpace of) {
    std::vector<std::string> keys;
    for (const Figure* f : site_figures(of))
      keys.emplace_back(f->key);
    return keys;
  };
  static const std::vector<std::string> global = keys_of(MemorySpace::global),
                                        shared = keys_of(MemorySpace::shared);
  return space == MemorySpace::global ? global : shared;
}

namespace {

// The value written as the figure table writes that key, or plainly where it has no row.
std::string written(const std::string& key, double value) {
  if (const Figure* f = find_figure(key))
    return figure_text(*f, value);
  return format("%g", value);
}

const SitePrediction* site_named(const RunResult& result, const std::string& name) {
  for (const SitePrediction& site : result.prediction.sites)
    if (site.name == name)
      return &site;
  return nullptr;
}

} // namespace

std::string measuring_gpu(const RunResult& result) {
  return result.timing && result.recorded_on.empty() ? result.arch.name : "";
}

namespace {

std::string source_of_measurement(const RunResult& result, const std::string& measured_source) {
  return !measured_source.empty()      ? measured_source
         : !result.recorded_on.empty() ? result.recorded_on
                                       : "measured on " + result.arch.name;
}

// `verified`: 1 where the outputs were checked and right, 0 where wrong or not compared. A model
// runs nothing: its outputs count as right, and the reading says they are checked on a GPU only.
FigureReading outputs_reading(const RunResult& result, const std::string& measured_source) {
  const std::optional<Verification>& v = result.verification;
  if (!v)
    return {1, "are not checked here: the model runs nothing (a run on a GPU checks them)",
            "the model"};
  const std::string source = source_of_measurement(result, measured_source);
  if (!v->skipped.empty())
    return {0, "were not compared: " + v->skipped, source};
  if (!v->passed)
    return {0,
            "were wrong (" + std::to_string(v->mismatches) + " of " + std::to_string(v->checked) +
                "; the first: " + v->first_failure + ")",
            source};
  return {1, "were verified (" + std::to_string(v->checked) + " against " + v->against + ")",
          source};
}

std::string described(const FigureRef& figure) {
  if (figure.key == "verified")
    return "the outputs";
  const Figure* row = find_figure(figure.key);
  const std::string name = row ? std::string(row->display) : figure.key;
  return !figure.every.empty() ? name + " of every " + figure.every
         : figure.site.empty() ? name
                               : name + " of \"" + figure.site + "\"";
}

// "sectors per request of "line 14: global load, 4 B" is 32.00 (the model)", "the outputs were
// verified (...)".
std::string said(const FigureRef& figure, const FigureReading& reading) {
  if (figure.key == "verified") // the model's reading says itself why nothing was checked
    return "the outputs " + reading.text +
           (reading.source == "the model" ? "" : " (" + reading.source + ")");
  return described(figure) + " is " + reading.text + " (" + reading.source + ")";
}

bool site_is(const SitePrediction& site, const std::string& every) {
  const std::string space = site.space == MemorySpace::global ? "global" : "shared";
  const std::string op = site.op == AccessOp::load ? "load" : "store";
  return every == space || every == space + " " + op;
}

// The step's conditions for this launch: one of every kind of site (`of every global load`) made
// one per such site, so the verdict names the line where it fails; left whole where the launch
// has no such site (it then has no value).
std::vector<Condition> for_launch(const std::vector<Condition>& conditions,
                                  const RunResult& result) {
  std::vector<Condition> out;
  for (const Condition& c : conditions) {
    const std::size_t before = out.size();
    if (!c.figure.every.empty())
      for (const SitePrediction& site : result.prediction.sites)
        if (site_is(site, c.figure.every) && site.requests > 0)
          out.push_back({FigureRef{c.figure.key, site.name}, c.comparison, c.value});
    if (out.size() == before)
      out.push_back(c);
  }
  return out;
}

bool close_enough(double typed, double truth, double within_percent) {
  return std::fabs(typed - truth) <= within_percent / 100 * std::fabs(truth) + 1e-9;
}

std::string with_why(std::string says, const LessonStep& step) {
  return step.why.empty() ? says : says + " " + step.why;
}

std::string with_hint(std::string says, const LessonStep& step) {
  return step.hint.empty() ? says : says + " Hint: " + step.hint;
}

// A typed number against the figure's value, within the step's percentage.
LessonVerdict judge_number(const LessonStep& step, const std::string& typed,
                           const std::optional<FigureReading>& truth) {
  if (!truth)
    return {false, described(step.answer) + " has no value for this launch"};
  const std::optional<double> number = typed_number(typed);
  if (!number)
    return {false, in_quotes(typed, 30) + " is not a number; type the figure's value, e.g. 4"};
  if (close_enough(*number, truth->value, step.within_percent))
    return {true, with_why("Right: " + described(step.answer) + " is " + truth->text + " (" +
                               truth->source + ").",
                           step)};
  return {false, with_hint("Not " + clip(typed, 30) + ".", step)};
}

bool holds(const Condition& condition, double value) {
  const double target = condition.value;
  const bool equal = close_enough(value, target, 0.5);
  switch (condition.comparison) {
  case Comparison::equal:
    return equal;
  case Comparison::not_equal:
    return !equal;
  case Comparison::less:
    return value < target && !equal;
  case Comparison::less_equal:
    return value <= target || equal;
  case Comparison::greater:
    return value > target && !equal;
  case Comparison::greater_equal:
    return value >= target || equal;
  }
  return false;
}

// Where a condition fails, in words: "wavefronts per request of "read column" is 32.00 (the
// model); wanted = 1". "" where every condition holds.
template <typename Read> std::string unmet(const std::vector<Condition>& conditions, Read read) {
  for (const Condition& condition : conditions) {
    const std::optional<FigureReading> now = read(condition.figure);
    if (!now && !condition.figure.every.empty())
      return "the kernel makes no " + condition.figure.every +
             (condition.figure.every.find(' ') == std::string::npos ? " access" : "") +
             " (the goal is on every one)";
    if (!now)
      return described(condition.figure) + " has no value for this launch";
    if (!holds(condition, now->value))
      return said(condition.figure, *now) +
             (condition.figure.key == "verified"
                  ? "; wanted verified"
                  : "; wanted " + std::string(comparison_text(condition.comparison)) + " " +
                        format("%g", condition.value) +
                        (now->text.ends_with("%") ? " %" : "")); // a percentage says so
  }
  return "";
}

Params replaced(Params params, const std::string& name, std::int64_t value) {
  params[name] = value;
  return params;
}

// The values of `name` below `now` the kernel allows, the least first.
std::vector<std::int64_t> smaller_values(const KernelDesc& kernel, const std::string& name,
                                         std::int64_t now) {
  std::vector<std::int64_t> values;
  for (const ParamSpec& spec : kernel.params) {
    if (spec.name != name)
      continue;
    if (spec.choices.empty()) // a range: its values below `now`, 4,096 at most
      for (std::int64_t v = spec.min; v < now && values.size() < 4096; ++v)
        values.push_back(v);
    for (const std::int64_t choice : spec.choices)
      if (choice < now)
        values.push_back(choice);
  }
  std::sort(values.begin(), values.end());
  return values;
}

} // namespace

namespace {

// The line a launch's refusal belongs to: the kernel's, the first parameter that makes it fail,
// else the block's (or the solution's, where it set them); each part is resolved with those
// before it and the kernel's default block.
int refused_line(const LessonStep& step, const std::vector<std::string>& params,
                 const std::vector<int>& lines, int block_line) {
  const auto fails = [&](std::size_t count) {
    try {
      resolve_kernel_request(step_kernel_id(step), {params.begin(), params.begin() + count}, "",
                             "");
      return false;
    } catch (const UsageError&) {
      return true;
    }
  };
  if (fails(0))
    return step.kernel_line ? step.kernel_line : step.line;
  for (std::size_t i = 0; i < params.size(); ++i)
    if (fails(i + 1))
      return lines[i];
  return block_line ? block_line : step.line;
}

} // namespace

std::string step_kernel_id(const LessonStep& step) {
  return names_a_kernel_file(step.kernel) ? kernel_file_id(step.kernel) : step.kernel;
}

StepLaunch step_launch(const Lesson& lesson, const LessonStep& step,
                       const std::vector<Arch>& presets, bool with_solution) {
  std::vector<std::string> params = step.params;
  std::vector<int> lines = step.param_lines;
  lines.resize(params.size(), step.line);
  std::string block = step.block;
  int block_line = step.block_line;
  if (with_solution) {
    for (const std::string& param : step.solution_params) {
      const std::string name = param.substr(0, param.find('='));
      for (std::size_t i = params.size(); i-- > 0;)
        if (params[i].starts_with(name + "=")) {
          params.erase(params.begin() + static_cast<std::ptrdiff_t>(i));
          lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
        }
      params.push_back(param);
      lines.push_back(step.solution_line);
    }
    if (!step.solution_block.empty()) {
      block = step.solution_block;
      block_line = step.solution_line;
    }
  }
  StepLaunch launch;
  try {
    launch.arch = find_arch(presets, step.arch.empty() ? lesson.arch : step.arch);
  } catch (const UsageError& e) {
    const int line = !step.arch.empty() ? step.arch_line : lesson.arch_line;
    throw UsageError(lesson.file + ":" + std::to_string(line ? line : step.line) + ": " + e.what());
  }
  // An exercise's solution is another file: its template solved, named on its own line.
  LessonStep solved = step;
  if (with_solution && !step.solution_kernel.empty()) {
    solved.kernel = step.solution_kernel;
    solved.kernel_line = step.solution_line;
  }
  std::string id;
  try { // a kernel file that cannot be read or compiled: at the line that names it
    id = step_kernel_id(solved);
  } catch (const UsageError& e) {
    throw UsageError(lesson.file + ":" +
                     std::to_string(solved.kernel_line ? solved.kernel_line : step.line) + ": " +
                     e.what());
  }
  try {
    launch.request = resolve_kernel_request(id, params, "", block);
  } catch (const UsageError& e) {
    throw UsageError(lesson.file + ":" +
                     std::to_string(refused_line(solved, params, lines, block_line)) + ": " +
                     e.what());
  }
  return launch;
}

std::vector<KernelRequest> lesson_launches(const std::vector<Lesson>& lessons,
                                           const std::vector<Arch>& presets) {
  std::vector<KernelRequest> launches;
  std::set<std::string> seen;
  const auto add = [&](const StepLaunch& launch) {
    std::string key = launch.request.kernel->id + " " + format_block(launch.request.block);
    for (const auto& [name, value] : launch.request.params)
      key += " " + name + "=" + std::to_string(value);
    if (seen.insert(key).second)
      launches.push_back(launch.request);
  };
  for (const Lesson& lesson : lessons)
    for (const LessonStep& step : lesson.steps) {
      if (step.playground || names_a_kernel_file(step.kernel))
        continue;
      add(step_launch(lesson, step, presets));
      if (step.until_line)
        add(step_launch(lesson, step, presets, true));
    }
  return launches;
}

IndexPlayground step_playground(const LessonStep& step, bool with_solution) {
  IndexPlayground playground;
  playground.expression = with_solution && !step.solution_expression.empty()
                              ? step.solution_expression
                              : step.playground->expression;
  playground.swizzle = step.playground->swizzle;
  playground.element_bytes = step.playground->element_bytes;
  playground.space = step.playground->shared ? MemorySpace::shared : MemorySpace::global;
  if (!step.block.empty())
    playground.block = parse_block(step.block);
  return playground;
}

std::optional<FigureReading> read_figure(const FigureRef& figure, const RunResult& result,
                                         const std::string& measured_source) {
  if (figure.key == "verified")
    return outputs_reading(result, measured_source);
  if (!figure.every.empty())
    return std::nullopt; // read site by site (for_launch)
  if (!figure.site.empty()) {
    const SitePrediction* site = site_named(result, figure.site);
    const Figure* row = find_figure(figure.key);
    if (!site || !row || !row->site_predicted || !site_has(*row, site->space))
      return std::nullopt;
    const std::size_t index = static_cast<std::size_t>(site - result.prediction.sites.data());
    if (const std::optional<double> measured = site_measured_value(*row, result, index))
      return FigureReading{*measured, written(figure.key, *measured),
                           source_of_measurement(result, measured_source)};
    const double value = row->site_predicted(*site);
    if (std::isnan(value)) // not known: a result made before the model kept it
      return std::nullopt;
    return FigureReading{value, written(figure.key, value), "the model"};
  }
  const Figure* row = find_figure(figure.key);
  if (!row)
    return std::nullopt;
  // A model's result carries ptxas's registers where a run carries the device's: only a run (or
  // a recording of one) has measured anything.
  const bool ran = result.timing || result.counters || result.runtime_blocks_per_sm >= 0;
  const std::optional<double> measured =
      ran && row->measured ? row->measured(result) : std::nullopt;
  if (measured)
    return FigureReading{*measured, figure_text(*row, *measured),
                         source_of_measurement(result, measured_source)};
  if (!ran && row->measured && !row->predicted)
    if (const std::optional<double> own = row->measured(result)) // ptxas's, in a model's result
      return FigureReading{*own, figure_text(*row, *own), "the model"};
  if (const std::optional<double> modelled = row->predicted ? row->predicted(result) : std::nullopt)
    return FigureReading{*modelled, figure_text(*row, *modelled), "the model"};
  return std::nullopt;
}

namespace {

// The playground warp's figures, from the figure table's warp readers of its space.
std::map<std::string, double, std::less<>> playground_values(const IndexPlayground& playground) {
  const PlaygroundWarp warp = evaluate_playground(playground);
  const nlohmann::json figures = warp_figures_json(warp.access, playground.space);
  std::map<std::string, double, std::less<>> values;
  for (const auto& [key, value] : figures.items())
    values[key] = value.get<double>();
  return values;
}

} // namespace

std::vector<std::string> playground_figure_keys(const IndexPlayground& playground) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : playground_values(playground))
    keys.push_back(key);
  return keys;
}

std::optional<FigureReading> read_playground_figure(const std::string& key,
                                                    const IndexPlayground& playground) {
  const auto values = playground_values(playground);
  const auto value = values.find(key);
  if (value == values.end())
    return std::nullopt;
  return FigureReading{value->second, written(key, value->second), "the model"};
}

std::vector<std::string> limiter_names(const RunResult& result) {
  std::vector<std::string> names;
  if (result.occupancy)
    for (const Resource r : result.occupancy->limiters)
      names.emplace_back(resource_name(r));
  return names;
}

std::string choice_in_words(std::string choice) {
  std::replace(choice.begin(), choice.end(), '_', ' ');
  return choice;
}

LessonVerdict judge_answer(const LessonStep& step, const std::string& typed,
                           const RunResult& result, const std::string& measured_source) {
  if (step.answer.key == "limiter") {
    const std::vector<std::string> limiters = limiter_names(result);
    const bool right = std::find(limiters.begin(), limiters.end(), typed) != limiters.end();
    const std::string truth = result.occupancy ? result.occupancy->explanation : "";
    if (right)
      return {true, with_why("Right: " + truth, step)};
    return {false, with_hint("Not " + clip(choice_in_words(typed), 30) + ".", step)};
  }
  return judge_number(step, typed, read_figure(step.answer, result, measured_source));
}

LessonVerdict judge_playground_answer(const LessonStep& step, const std::string& typed,
                                      const IndexPlayground& playground) {
  return judge_number(step, typed, read_playground_figure(step.answer.key, playground));
}

std::string conditions_read(const std::vector<Condition>& conditions, const RunResult& result) {
  std::string read;
  for (const Condition& condition : for_launch(conditions, result))
    if (const std::optional<FigureReading> reading = read_figure(condition.figure, result))
      read += (read.empty() ? "" : ", ") + said(condition.figure, *reading);
  return read;
}

namespace {

// A condition on a site by its name ("line 26: shared load, 4 B") where the launch has no such
// site: an edit that moved the line, said with the sites there are ("" where each is there).
std::string site_not_there(const LessonStep& step, const RunResult& now) {
  for (const Condition& c : step.until) {
    if (c.figure.site.empty() || site_named(now, c.figure.site))
      continue;
    std::vector<std::string> names;
    for (const SitePrediction& site : now.prediction.sites)
      names.push_back("\"" + site.name + "\"");
    return "the kernel has no site \"" + clip(c.figure.site, 60) + "\" (its sites: " +
           (names.empty() ? std::string("none") : clip(joined(names, ", "), 300)) +
           "); a site named by its line is lost when an edit moves the line: name sites by kind, "
           "e.g. of every shared load";
  }
  return "";
}

// A goal on every access of a kind is judged on the model's table of sites, which leaves out an
// access on a line of the kernel file the model could not follow (an address read from the
// clock): there, no figure says that every access meets it. The notes on no line (blocks that
// stopped early, a header's code, a load the compiler put on line 0) name no line of the
// learner's to change, and are left to the Source panel.
std::string left_out_of_every(const LessonStep& step, const RunResult& now) {
  const bool every = std::any_of(step.until.begin(), step.until.end(),
                                 [](const Condition& c) { return !c.figure.every.empty(); });
  if (!every || !now.prediction.from_code)
    return "";
  for (const LineNote& note : now.prediction.notes)
    if (note.line > 0)
      return "line " + std::to_string(note.line) + " is not predicted (" + clip(note.reason, 200) +
             "), so no figure says that every access meets the goal";
  return "";
}

} // namespace

LessonVerdict judge_launch(const LessonStep& step, const RunResult& now,
                           const std::function<RunResult(const Params&)>& model_with) {
  std::string missing = site_not_there(step, now);
  if (missing.empty())
    missing = unmet(for_launch(step.until, now),
                    [&](const FigureRef& figure) { return read_figure(figure, now); });
  if (missing.empty())
    missing = left_out_of_every(step, now);
  if (!missing.empty())
    return {false, with_hint("Not yet: " + missing + ".", step)};
  if (!step.least.empty() && now.params.count(step.least)) {
    const std::int64_t value = now.params.at(step.least);
    const KernelDesc* kernel = find_kernel(now.kernel_id);
    for (const std::int64_t smaller :
         kernel ? smaller_values(*kernel, step.least, value) : std::vector<std::int64_t>{}) {
      const RunResult other = model_with(replaced(now.params, step.least, smaller));
      if (unmet(for_launch(step.until, other), [&](const FigureRef& f) {
            return read_figure(f, other);
          }).empty())
        return {false, with_hint("It holds with " + step.least + "=" + std::to_string(value) +
                                     ", but a smaller " + step.least + " would do too.",
                                 step)};
    }
  }
  // The models run nothing: a goal that asks for checked outputs is met by the figures alone.
  const bool unchecked = std::any_of(step.until.begin(), step.until.end(), [&](const Condition& c) {
    return c.figure.key == "verified" && !now.verification;
  });
  return {true, with_why(std::string(unchecked ? "Right by the models' figures: " : "Right: ") +
                             conditions_read(step.until, now) + ".",
                         step)};
}

LessonVerdict judge_playground(const LessonStep& step, const IndexPlayground& now) {
  std::string missing;
  try {
    missing = unmet(step.until, [&](const FigureRef& figure) {
      return read_playground_figure(figure.key, now);
    });
  } catch (const UsageError& e) {
    return {false, std::string("The playground cannot evaluate it: ") + e.what()};
  }
  if (!missing.empty())
    return {false, with_hint("Not yet: " + missing + ".", step)};
  return {true, with_why("Right: the warp's access now meets it.", step)};
}

std::optional<double> typed_number(std::string text) {
  std::erase_if(text, [](char c) { return c == ',' || c == '_' || c == ' '; });
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value))
    return std::nullopt;
  return value;
}

} // namespace wl
