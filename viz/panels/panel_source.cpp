// Source: the kernel's own code as this binary was built from it (its family file), with every
// access site's figures beside the line that makes the access: the model's prediction per request
// against the ideal and, after a Run that measured per site, what the SASS instructions on that
// line counted. A site's line is tinted by its waste (green at the ideal, red past it); hovering it
// lists its instructions; clicking a site's name opens it in the warp map or the bank grid. There
// is no disassembly here, so an instruction is named by what it measured: kind, width and PC.

#include "base/error.h"
#include "base/text_format.h"
#include "base/text_scan.h"
#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "drawing/stall_bars.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_source.h"
#include "panels/panels.h"
#include "report/figures.h"
#include "report/site_report.h"
#include "report/stall_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <imgui.h>

namespace wl::viz {

namespace {

// The code part of a line: what precedes its comment.
std::string code_of(const std::string& line) { return line.substr(0, line.find("//")); }

// Where a helper's site line is best read from: its function's signature (the nearest __device__
// line above it, with a template line before that), or the line itself when none is near.
int helper_start(const std::vector<std::string>& lines, int line) {
  for (int at = line; at >= 1 && at > line - 60; --at)
    if (code_of(lines[static_cast<std::size_t>(at - 1)]).find("__device__") != std::string::npos)
      return at > 1 && lines[static_cast<std::size_t>(at - 2)].starts_with("template") ? at - 1
                                                                                       : at;
  return line;
}

// The lines shown when focused on the kernel, in file order: its function, and each helper its
// sites are written in, from the helper's signature to its last site; a gap of a few lines is
// shown rather than left out. 0 marks the lines left out.
std::vector<int> focused_lines(const FamilySource& source, const SiteLines& lines,
                               const std::map<int, std::vector<std::size_t>>& sites_on) {
  const int count = static_cast<int>(source.lines.size());
  std::set<int> chosen;
  for (int line = std::max(1, lines.first_line); line <= std::min(count, lines.last_line); ++line)
    chosen.insert(line);
  for (const auto& [line, sites] : sites_on)
    if (line <= count && (line < lines.first_line || line > lines.last_line))
      for (int at = helper_start(source.lines, line); at <= line; ++at)
        chosen.insert(at);
  constexpr int kSmallestGap = 4; // lines left out: fewer are shown
  std::vector<int> shown;
  for (int line : chosen) {
    if (!shown.empty() && line - shown.back() - 1 >= kSmallestGap)
      shown.push_back(0);
    else if (!shown.empty())
      for (int between = shown.back() + 1; between < line; ++between)
        shown.push_back(between);
    shown.push_back(line);
  }
  return shown;
}

// The family file and where the kernel's sites are written in it. site_lines parses the file, so
// it is found once per kernel function, not every frame.
struct KernelLines {
  std::string key; // the kernel's id and function
  const FamilySource* source = nullptr;
  SiteLines lines;
  std::map<int, std::vector<std::size_t>> sites_on; // a line -> the sites written on it
  std::vector<int> focused;                         // focused_lines
  std::string problem;                              // the binary holds no such file
};

const KernelLines& kernel_lines(const KernelDesc& kernel, const Params& params) {
  static KernelLines cached; // one GUI thread draws the panels
  const std::string key = kernel.id + " " + kernel_function_name(kernel, params);
  if (cached.key == key)
    return cached;
  cached = KernelLines{};
  cached.key = key;
  try {
    cached.source = &family_source(kernel);
    cached.lines = site_lines(kernel, params);
  } catch (const Error& e) {
    cached.problem = e.what();
    return cached;
  }
  for (std::size_t s = 0; s < cached.lines.lines.size(); ++s)
    if (cached.lines.lines[s] > 0)
      cached.sites_on[cached.lines.lines[s]].push_back(s);
  cached.focused = focused_lines(*cached.source, cached.lines, cached.sites_on);
  return cached;
}

std::vector<int> shown_lines(const KernelLines& k, bool whole_file) {
  if (!whole_file)
    return k.focused;
  std::vector<int> every(k.source->lines.size());
  std::iota(every.begin(), every.end(), 1);
  return every;
}

// The per-site figures measured for this kernel by the latest run; `stale` when that run was
// another launch of it (another block or parameters): then greyed, with the reason above.
struct Measured {
  const SiteCounts* counts = nullptr;
  bool stale = false;
  bool recorded = false; // the bundled recording's (model mode), not this machine's
};

Measured measured_sites(const App& app) {
  if (!app.results.latest || app.results.latest->kernel_id != app.choices.kernel_id ||
      !app.results.latest->site_counts)
    return {};
  const SiteCounts& counts = *app.results.latest->site_counts;
  if (!counts.available || counts.sites.size() != app.kernel()->sites.size())
    return {};
  return {&counts, app.latest_is_stale(), !app.results.latest->recorded_on.empty()};
}

// The latest run's stall samples of this kernel, by line of `file` (the file on screen); `stale`
// when that run was another launch of it: its bars are then greyed. Samples placed on another
// file's lines draw no bar here.
struct Stalls {
  const StallSamples* samples = nullptr;
  std::map<int, const StalledLine*> lines;
  bool stale = false;
  std::string recorded_on; // "recorded on DEVICE, DATE" where a recording's
};

Stalls latest_stalls(const App& app, const std::string& file) {
  Stalls s;
  const RunResult* latest = app.results.latest ? &*app.results.latest : nullptr;
  if (!latest || latest->kernel_id != app.choices.kernel_id || !latest->stalls ||
      !latest->stalls->available)
    return s;
  s.samples = &*latest->stalls;
  if (s.samples->file == file)
    for (const StalledLine& line : s.samples->lines)
      s.lines[line.line] = &line;
  s.stale = app.latest_is_stale();
  s.recorded_on = latest->recorded_on;
  return s;
}

// The box that asks the next Run for stall samples (not in model mode, where nothing runs), and
// what the latest samples say: measured here, or the recording's.
void draw_stalls_header(App& app, const Stalls& stalls) {
  if (!in_model_mode(app)) {
    same_line_if_room(ImGui::CalcTextSize("Sample stalls").x + ImGui::GetFrameHeight() * 2);
    ui::checkbox("Sample stalls", &app.choices.measure_stalls);
    help_marker(
        "The next Run (F5) also samples where the warps wait (PC sampling, a pass of its "
        "own): each line gets a bar after its number, as long as its share of the samples, in "
        "the colours of its stall reasons; hover a bar for the reasons in words. The "
        "Counters panel lists the launch's reasons. Live edits never make it.");
  }
  if (!stalls.samples)
    return;
  const StallSamples& s = *stalls.samples;
  const std::uint64_t whole = s.samples();
  if (s.launch.empty() || whole == 0)
    return;
  const StallCount& top = s.launch.front();
  const std::string text =
      "Stalls sampled: " + format_count(static_cast<std::int64_t>(whole)) + " samples; most on " +
      top.reason + " (" + stall_percent(top.samples, whole) + ", " +
      std::string(stall_meaning(top.reason).words) +
      "). The bar after a line's number is its share of them; hover it for its reasons." +
      (stalls.stale ? " These are of another launch." : "");
  if (stalls.recorded_on.empty())
    note_text(text);
  else
    recorded_text(text + " (" + stalls.recorded_on + ", model mode: nothing ran here)");
}

// One line: why no measured figure stands beside the predictions (`unit` "site") or beside a
// kernel file's lines ("line").
std::string why_not_measured(const App& app, const std::string& unit = "site") {
  const std::string lead = "No measured figures per " + unit + ": ";
  const std::string tick = "Tick Measure per " + unit + ", then Run (F5).";
  const RunResult* latest = app.results.latest ? &*app.results.latest : nullptr;
  if (latest && latest->kernel_id == app.choices.kernel_id && latest->site_counts)
    return lead + (latest->site_counts->reason.empty()
                       ? "the measurement does not match this kernel's " + unit + "s."
                       : latest->site_counts->reason);
  if (in_model_mode(app))
    return lead + "model mode: " +
           (latest && !latest->recorded_on.empty()
                ? "nothing runs on a GPU here, and the recording has no per-site figures of this "
                  "launch."
                : app.untimed_reason()) +
           (unit == "site" ? " The predictions alone." : "");
  if (!latest || latest->kernel_id != app.choices.kernel_id)
    return lead + "this kernel has not been measured yet. " + tick;
  return lead + (app.choices.measure_per_site
                     ? "the last run was a live edit, which never makes the per-" + unit +
                           " pass. Run (F5) makes it."
                     : "the last run made no per-" + unit + " pass. " + tick);
}

bool is_global(const SitePrediction& site) { return site.space == MemorySpace::global; }

double predicted_per_request(const SitePrediction& site) {
  return is_global(site) ? site.sectors_per_request() : site.wavefronts_per_request();
}

double ideal_per_request(const SitePrediction& site) {
  if (site.requests == 0)
    return 0;
  return static_cast<double>(is_global(site) ? site.ideal_sectors : site.ideal_wavefronts) /
         static_cast<double>(site.requests);
}

std::optional<double> measured_per_request(const SiteMeasurement& m, MemorySpace space) {
  if (m.executed <= 0)
    return std::nullopt;
  return traffic(m, space) / m.executed;
}

// How many times the ideal a site costs per request: 1 at the ideal. Past 1 % it is waste, as the
// Counters panel counts it.
double waste(double per_request, double ideal) { return ideal > 0 ? per_request / ideal : 1; }
bool wasteful(double ratio) { return ratio > 1.01; }

// What a site's figures are drawn from this frame.
struct Context {
  const KernelDesc& kernel;
  const KernelLines& lines;
  const RunResult* model; // the predictions of this kernel; nullptr while they are computed
  Measured measured;
  std::string why_not; // why there are no measured figures
  Stalls stalls;
};

// The figure a site's waste is judged by: measured where a measurement of this launch has it.
double site_waste(const Context& c, std::size_t s) {
  const SitePrediction& site = c.model->prediction.sites[s];
  double per_request = predicted_per_request(site);
  if (c.measured.counts && !c.measured.stale)
    per_request =
        measured_per_request(c.measured.counts->sites[s], site.space).value_or(per_request);
  return waste(per_request, ideal_per_request(site));
}

// Green when every site of the line costs its ideal, red as deep as the worst one's waste.
ImU32 line_tint(const Context& c, const std::vector<std::size_t>& sites) {
  double worst = 1;
  for (std::size_t s : sites)
    worst = std::max(worst, site_waste(c, s));
  if (!wasteful(worst))
    return ideal_colour(0.16f);
  return waste_colour(std::min(0.5f, 0.2f + 0.1f * static_cast<float>(worst - 1)));
}

// "LDS.128 R8, [R20]: shared load, 16 B/lane, pc 0x3b0:" and, indented under it, "4,096
// executions, 131,072 lanes, 16,384 wavefronts": an instruction by its SASS text where nvdisasm's
// listing is at hand, and by what it measured. Two lines, so the tooltip's wrapping never splits
// a number at its commas.
std::string instruction_text(const MeasuredInstruction& i) {
  const bool global = i.space == MemorySpace::global;
  std::string text = (i.sass.empty() ? "" : i.sass + ": ") + access_kind(i.space, i.op);
  text += i.width > 0 ? ", " + std::to_string(i.width) + " B/lane" : ", width not measured";
  text += format(", pc 0x%x:\n    ", i.pc);
  text += format_count(std::llround(i.executed)) + " executions, ";
  text += format_count(std::llround(i.lanes)) + " lanes, ";
  text += format_count(std::llround(traffic(i, i.space)));
  return text + (global ? " sectors" : " wavefronts");
}

// The hovered site's SASS instructions, as measured, or why there are none.
std::string instructions_text(const Context& c, std::size_t s) {
  const SitePrediction& site = c.model->prediction.sites[s];
  std::string text = site.name + ": a " + access_kind(site.space, site.op) + " of " +
                     std::to_string(site.width) + " B per lane, on line " +
                     std::to_string(c.lines.lines.lines[s]) + ". Predicted " +
                     format_count(site.requests) + " requests (warp executions).\n";
  if (!c.measured.counts)
    return text + c.why_not;
  const SiteMeasurement& m = c.measured.counts->sites[s];
  if (m.instructions.empty())
    return text + "No measured instruction of its kind on this line.";
  const bool disassembled = std::any_of(m.instructions.begin(), m.instructions.end(), [&](auto i) {
    return !c.measured.counts->instructions[i].sass.empty();
  });
  text += std::string("Its SASS instructions as ") +
          (c.measured.recorded ? "recorded" : "measured") +
          (disassembled ? ":" : " (no disassembly here: each by its kind and width):");
  for (std::size_t i : m.instructions)
    text.append("\n").append(instruction_text(c.measured.counts->instructions[i]));
  return text;
}

// `measured` is a kernel file's figure under a line of its code, in the blue of the controls, so it
// never reads as code.
enum class Tone { plain, wasteful, flagged, greyed, measured };

// A figure's words, in pieces that stay whole: "predicted 4.00 sectors/request", "(ideal 4.00),".
using Pieces = std::vector<std::string>;

void text_in_tone(const std::string& text, Tone tone) {
  switch (tone) {
  case Tone::plain:
    wrapped_text(text);
    break;
  case Tone::wasteful:
    wasteful_text(text, true);
    break;
  case Tone::flagged:
    error_text(text);
    break;
  case Tone::greyed:
    note_text(text);
    break;
  case Tone::measured:
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_CheckMark));
    wrapped_text(text);
    ImGui::PopStyleColor();
    break;
  }
}

// A figure of a site's annotation: each piece beside the one before while it fits (a space apart
// within the figure), else on a row of its own; only a piece wider than a whole row wraps.
void figure_text(const Pieces& pieces, Tone tone) {
  const float space = ImGui::CalcTextSize(" ").x;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    same_line_if_room(ImGui::CalcTextSize(pieces[i].c_str()).x, i == 0 ? -1 : space);
    text_in_tone(pieces[i], tone);
  }
}

Pieces predicted_pieces(const SitePrediction& site) {
  std::string ideal = "(ideal " + format_number(ideal_per_request(site));
  if (!is_global(site) && site.conflict_degree > 1)
    ideal += "; " + std::to_string(site.conflict_degree) + "-way conflict";
  return {"predicted " + format_number(predicted_per_request(site)) +
              (is_global(site) ? " sectors/request" : " wavefronts/request"),
          ideal + "),", format_count(site.requests) + " requests"};
}

// "measured 2.00 wavefronts/request, 536,870,912 requests (1,073,741,824 wavefronts in all:
// -50.0 %)": per request, the requests, and where the site's sectors or wavefronts in all differ
// from the prediction, the total and by how much ("as predicted" where they do not). "recorded"
// for the recording's.
Pieces measured_pieces(const SiteMeasurement& m, MemorySpace space, bool recorded) {
  const std::optional<double> per_request = measured_per_request(m, space);
  const char* unit = space == MemorySpace::global ? "sectors" : "wavefronts";
  const double total = traffic(m, space);
  return {std::string(recorded ? "recorded " : "measured ") +
              (per_request ? format_number(*per_request) : std::string("-")) + " " + unit +
              "/request,",
          format_count(std::llround(m.executed)) + " requests",
          std::fabs(m.difference) < 0.0005
              ? std::string("(as predicted)")
              : "(" + format_count(std::llround(total)) + " " + unit +
                    " in all: " + format("%+.1f %%", 100 * m.difference) + ")"};
}

// The baseline's figure for the site of the same name and memory space (a tuned variant keeps
// its sites' names: naive's "load A" against tiled's): measured when both runs measured per site,
// "(TEXT)", appended in place: "(" + a temporary trips GCC 12's -Wrestrict where it is inlined.
std::string in_parentheses(const std::string& text) {
  return std::string("(").append(text).append(")");
}

// else predicted, and the change to the figure of the same kind now. None for a site it lacks.
Pieces baseline_pieces(const App& app, const SitePrediction& site,
                       std::optional<double> measured_now) {
  const RunResult& then = *app.results.baseline;
  const auto& sites = then.prediction.sites;
  const auto same = std::find_if(sites.begin(), sites.end(), [&](const SitePrediction& b) {
    return b.name == site.name && b.space == site.space;
  });
  if (same == sites.end())
    return {};
  const std::size_t b = static_cast<std::size_t>(same - sites.begin());
  if (measured_now && then.site_counts && then.site_counts->available &&
      b < then.site_counts->sites.size())
    if (const auto before = measured_per_request(then.site_counts->sites[b], same->space))
      return {std::string(then.recorded_on.empty() ? "baseline measured " : "baseline recorded ") +
                  format_number(*before),
              in_parentheses(change_text(*measured_now, *before))};
  return {"baseline predicted " + format_number(predicted_per_request(*same)),
          in_parentheses(change_text(predicted_per_request(site), predicted_per_request(*same)))};
}

// Opens the site in the warp map (global) or the bank grid (shared), as their site lists do.
void open_in_map(App& app, std::size_t site) {
  const std::vector<SiteView> views = app.sites_on_screen();
  if (site >= views.size())
    return;
  const MemorySpace space = views[site].space;
  const std::vector<int> in_space = sites_in(views, space);
  const int position = static_cast<int>(
      std::find(in_space.begin(), in_space.end(), static_cast<int>(site)) - in_space.begin());
  const bool global = space == MemorySpace::global;
  (global ? app.choices.global_map : app.choices.shared_map).site = position;
  app.show_panel(global ? Panel::global_memory : Panel::shared_memory);
}

// Whether the site is the one its map shows, chosen there or by a click on its name here.
bool chosen_in_map(const App& app, std::size_t site) {
  const std::vector<SiteView> views = app.sites_on_screen();
  if (site >= views.size())
    return false;
  const bool global = views[site].space == MemorySpace::global;
  const int chosen = (global ? app.choices.global_map : app.choices.shared_map).site;
  const std::vector<int> in_space = sites_in(views, views[site].space);
  return chosen >= 0 && chosen < static_cast<int>(in_space.size()) &&
         in_space[static_cast<std::size_t>(chosen)] == static_cast<int>(site);
}

// An outline, in the links' blue, around the rows from `top` to `bottom` of a line whose site
// its map shows: the line clicked stays marked after the map opens.
void outline_chosen(const App& app, const std::vector<std::size_t>& sites, const ImVec2& top,
                    const ImVec2& bottom) {
  if (std::none_of(sites.begin(), sites.end(),
                   [&](std::size_t s) { return chosen_in_map(app, s); }))
    return;
  const float left = ImGui::GetWindowPos().x;
  ImGui::GetWindowDrawList()->AddRect(ImVec2(left + 1, top.y - ImGui::GetStyle().ItemSpacing.y / 2),
                                      ImVec2(bottom.x - 1, bottom.y),
                                      ImGui::GetColorU32(ImGuiCol_CheckMark), 0, 0, 2);
}

// The measured figure of a site, coloured as its prediction is, or red where it differs.
void draw_measured(const Context& c, std::size_t s) {
  const SiteMeasurement& m = c.measured.counts->sites[s];
  const SitePrediction& site = c.model->prediction.sites[s];
  const std::optional<double> per_request = measured_per_request(m, site.space);
  figure_text(measured_pieces(m, site.space, c.measured.recorded),
              c.measured.stale ? Tone::greyed
              : m.flagged      ? Tone::flagged
              : per_request && wasteful(waste(*per_request, ideal_per_request(site)))
                  ? Tone::wasteful
                  : Tone::plain);
}

// Under a site's figures: that it was measured with others, and why it differs from the model.
void draw_measured_notes(const Context& c, std::size_t s) {
  const SiteMeasurement& m = c.measured.counts->sites[s];
  if (!m.measured_with.empty()) {
    std::string names;
    for (std::size_t other : m.measured_with)
      names += (names.empty() ? "" : ", ") + c.kernel.sites[other].name;
    note_text("measured together with " + names +
              ": one line, so these are the line's figures, against the sum of their predictions");
  }
  if (m.flagged)
    (c.measured.stale ? note_text : error_text)("differs from the model: " + m.reason);
}

// A site's name (a click opens it in its map) and its figures: predicted, measured, baseline.
// The line's first site stands beside the code where the row has room for its prediction.
void draw_site(App& app, const Context& c, std::size_t s, bool first_on_line) {
  const std::string name = c.kernel.sites[s].name;
  if (first_on_line) // room for the name and its prediction's first words
    same_line_if_room(
        ImGui::CalcTextSize(name.c_str()).x +
        (c.model
             ? ImGui::GetStyle().ItemSpacing.x +
                   ImGui::CalcTextSize(predicted_pieces(c.model->prediction.sites[s])[0].c_str()).x
             : 0));
  // In the checkbox's blue, which both themes show: a name that opens something when clicked.
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_CheckMark));
  const bool clicked = ui::link((name + "##site" + std::to_string(s)).c_str(), name);
  ImGui::PopStyleColor();
  if (clicked)
    open_in_map(app, s);
  if (!c.model) {
    figure_text({"predicting..."}, Tone::greyed);
    return;
  }
  const SitePrediction& site = c.model->prediction.sites[s];
  figure_text(predicted_pieces(site),
              wasteful(waste(predicted_per_request(site), ideal_per_request(site))) ? Tone::wasteful
                                                                                    : Tone::plain);
  if (c.measured.counts)
    draw_measured(c, s);
  std::optional<double> measured_now;
  if (c.measured.counts && !c.measured.stale)
    measured_now = measured_per_request(c.measured.counts->sites[s], site.space);
  if (app.results.baseline)
    figure_text(baseline_pieces(app, site, measured_now), Tone::plain);
  if (c.measured.counts)
    draw_measured_notes(c, s);
}

// Where code goes in the panel: a gutter of line numbers (with stall samples, each line's bar
// after its number), then the code in the monospaced font, wrapped at `columns` characters.
struct CodeLayout {
  int digits = 1;
  float code_x = 0, char_width = 1;
  int columns = 80;
  const Stalls* stalls = nullptr;
  float bar_x = 0, bar_width = 0; // from the row's left edge
};

// The bars' part of the gutter, in characters: a bar and a space each side.
constexpr int kStallBarColumns = 10;

CodeLayout code_layout(std::size_t line_count, const Stalls* stalls = nullptr) {
  CodeLayout layout;
  layout.digits = static_cast<int>(std::to_string(line_count).size());
  ImGui::PushFont(code_font());
  layout.char_width = ImGui::CalcTextSize("0").x;
  ImGui::PopFont();
  int gutter = layout.digits + 1;
  if (stalls && stalls->samples) {
    layout.stalls = stalls;
    layout.bar_x = layout.char_width * static_cast<float>(gutter);
    layout.bar_width = layout.char_width * (kStallBarColumns - 2);
    gutter += kStallBarColumns;
  }
  layout.code_x = ImGui::GetCursorPosX() + layout.char_width * static_cast<float>(gutter);
  const float room = ImGui::GetContentRegionAvail().x - layout.char_width * gutter;
  layout.columns = std::max(24, static_cast<int>(room / layout.char_width));
  return layout;
}

int indentation(const std::string& text) {
  const std::size_t first = text.find_first_not_of(' ');
  return first == std::string::npos ? 0 : static_cast<int>(first);
}

// A line in rows of at most `columns` characters, broken after a space, comma or opening
// bracket, near the row's end where one is, else at the last one in the row (an identifier is cut
// only where the row holds no break at all); rows after the first are indented four past the
// line's own indentation and start at their first character. A line that does not fit keeps at
// most a third of the row of indentation: deep alignment (parameters under a bracket) would push
// its code to the row's far end.
std::vector<std::string> wrapped(std::string text, int columns) {
  std::replace(text.begin(), text.end(), '\t', ' ');
  if (static_cast<int>(text.size()) > columns && indentation(text) > columns / 3)
    text.erase(0, static_cast<std::size_t>(indentation(text) - columns / 3));
  const std::size_t indent = static_cast<std::size_t>(std::min(indentation(text) + 4, columns / 2));
  std::vector<std::string> rows;
  std::size_t from = 0, width = static_cast<std::size_t>(columns);
  while (text.size() - from > width) {
    std::size_t cut = from + width;
    const std::size_t earliest =
        from + (rows.empty() ? static_cast<std::size_t>(indentation(text)) : 0);
    const std::size_t space = text.find_last_of(" ,(", cut - 1);
    if (space != std::string::npos && space >= earliest)
      cut = space + 1;
    rows.push_back((rows.empty() ? "" : std::string(indent, ' ')) + text.substr(from, cut - from));
    from = text.find_first_not_of(' ', cut);
    if (from == std::string::npos)
      return rows;
    width = static_cast<std::size_t>(columns) - indent;
  }
  rows.push_back((rows.empty() ? "" : std::string(indent, ' ')) + text.substr(from));
  return rows;
}

// A site's line as shown: its marker comment (`// site: NAME`) gives way to the site's name and
// figures drawn beside or under it.
std::string without_marker(const std::string& text) {
  for (std::size_t at = text.find("//"); at != std::string::npos; at = text.find("//", at + 2)) {
    TextScan scan(std::string_view(text).substr(at + 2));
    scan.skip_spaces();
    if (scan.take("site:") || scan.take("sites:")) {
      std::size_t end = at;
      while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t'))
        --end;
      return text.substr(0, end);
    }
  }
  return text;
}

// How far a line's figures are indented: under the code's own indentation, never further than a
// third of the row.
float figures_indent(const CodeLayout& layout, const std::string& text) {
  return layout.code_x - ImGui::GetCursorPosX() +
         layout.char_width * static_cast<float>(std::min(indentation(text), layout.columns / 3));
}

void draw_code(const CodeLayout& layout, int number, const std::string& text) {
  if (layout.stalls)
    if (const auto line = layout.stalls->lines.find(number); line != layout.stalls->lines.end())
      stall_bar(ImGui::GetCursorScreenPos().x + layout.bar_x, ImGui::GetCursorScreenPos().y,
                layout.bar_width, line->second->reasons, line->second->samples,
                layout.stalls->samples->samples(), layout.stalls->stale,
                "Line " + std::to_string(number));
  ImGui::PushFont(code_font());
  ImGui::TextDisabled("%*d", layout.digits, number);
  bool first = true;
  for (const std::string& row : wrapped(text, layout.columns)) {
    if (first)
      ImGui::SameLine(layout.code_x);
    else
      ImGui::SetCursorPosX(layout.code_x);
    first = false;
    ImGui::TextUnformatted(row.c_str());
  }
  ImGui::PopFont();
}

// A line of the file; a line with sites has their figures under it (beside it where there is
// room), tinted by their waste behind them, and lists their instructions on hover.
void draw_line(App& app, const Context& c, const CodeLayout& layout, int number) {
  const std::string& line = c.lines.source->lines[static_cast<std::size_t>(number - 1)];
  const auto found = c.lines.sites_on.find(number);
  if (found == c.lines.sites_on.end()) {
    draw_code(layout, number, line);
    return;
  }
  const std::string text = without_marker(line);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->ChannelsSplit(2); // the tint goes behind what is drawn over it
  draw->ChannelsSetCurrent(1);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  draw_code(layout, number, text);
  const float indent = figures_indent(layout, text);
  ImGui::Indent(indent);
  for (std::size_t s : found->second)
    draw_site(app, c, s, s == found->second.front());
  ImGui::Unindent(indent);
  const float left = ImGui::GetWindowPos().x, right = left + ImGui::GetWindowWidth();
  const ImVec2 bottom(right, ImGui::GetCursorScreenPos().y - ImGui::GetStyle().ItemSpacing.y / 2);
  draw->ChannelsSetCurrent(0);
  if (c.model)
    draw->AddRectFilled(ImVec2(left, top.y - ImGui::GetStyle().ItemSpacing.y / 2), bottom,
                        line_tint(c, found->second));
  draw->ChannelsMerge();
  outline_chosen(app, found->second, top, bottom);
  if (c.model && ImGui::IsWindowHovered() &&
      ImGui::IsMouseHoveringRect(ImVec2(left, top.y), bottom)) {
    std::string text_shown;
    for (std::size_t s : found->second)
      text_shown += (text_shown.empty() ? "" : "\n\n") + instructions_text(c, s);
    hover_text(text_shown);
  }
}

// The line a new view scrolls to: a few lines above the first site, so the accesses are in sight
// even where the panel is short; the kernel's function when it has no site line.
int first_line_in_sight(const KernelLines& k) {
  constexpr int kContext = 2;
  return k.sites_on.empty() ? k.lines.first_line : k.sites_on.begin()->first - kContext;
}

// Opens the code's region of its own that scrolls under the panel's header, so the header's notes
// and boxes (Measure per site) stay in sight however far the code is scrolled. The scrollbar
// always drawn: code rows wrap at the same width from the first frame, so the row scrolled to
// stays where it was put. Drawn alone for its picture the panel takes the window's height: the
// code then ends where its last line does (its height from the frame before), not in an empty
// region below it.
void begin_code_region(const App& app) {
  const bool picture = app.frame.screenshot && app.frame.screenshot->panel == Panel::source;
  const float room = ImGui::GetContentRegionAvail().y;
  const float stored = ImGui::GetStateStorage()->GetFloat(ImGui::GetID("##code_height"), 0);
  const float height = picture && stored > 0 && stored < room ? stored : 0; // else it scrolls
  ImGui::BeginChild("##code", ImVec2(0, height), true, ImGuiWindowFlags_AlwaysVerticalScrollbar);
}

// Closes it, keeping the code's height for the next picture.
void end_code_region() {
  const float content = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
  ImGui::EndChild();
  ImGui::GetStateStorage()->SetFloat(ImGui::GetID("##code_height"), content);
}

// The code: another kernel, or the whole file, is scrolled to its first site.
void draw_code_region(App& app, const Context& c) {
  begin_code_region(app);
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID scrolled = ImGui::GetID("##scrolled_to");
  const int view = static_cast<int>(
      std::hash<std::string>{}(c.lines.key + (app.choices.source_whole_file ? " whole" : "")));
  bool scroll = storage->GetInt(scrolled, 0) != view;
  storage->SetInt(scrolled, view);
  const CodeLayout layout = code_layout(c.lines.source->lines.size(), &c.stalls);
  for (int line : shown_lines(c.lines, app.choices.source_whole_file)) {
    if (line == 0) { // the lines left out
      ImGui::TextDisabled("%*s...", layout.digits, "");
      continue;
    }
    if (scroll && line >= first_line_in_sight(c.lines)) {
      ImGui::SetScrollY(ImGui::GetCursorPosY() - ImGui::GetStyle().WindowPadding.y); // at the top
      scroll = false;
    }
    draw_line(app, c, layout, line);
  }
  end_code_region();
}

// "on lines 71-85": where the sites are, which for a kernel that calls a helper is not its own
// lines.
std::string site_span(const SiteLines& lines) {
  int first = 0, last = 0;
  for (const int line : lines.lines)
    if (line > 0) {
      first = first == 0 ? line : std::min(first, line);
      last = std::max(last, line);
    }
  if (first == 0)
    return "";
  return first == last ? "on line " + std::to_string(first)
                       : "on lines " + std::to_string(first) + "-" + std::to_string(last);
}

void draw_header(App& app, const Context& c) {
  const SiteLines& lines = c.lines.lines;
  wrapped_textf("%s: %s (lines %d-%d), %s %s", lines.file.c_str(),
                kernel_function_name(c.kernel, app.choices.params).c_str(), lines.first_line,
                lines.last_line, counted(c.kernel.sites.size(), "access site").c_str(),
                site_span(lines).c_str());
  if (!lines.problem.empty())
    note_text(lines.problem);
  // In model mode there is no GPU to measure with: the box would do nothing. The recording's
  // figures, where it has the launch, say that they are recorded.
  if (!app.source || !app.source->mode().starts_with("model mode")) {
    ui::checkbox("Measure per site", &app.choices.measure_per_site);
    help_marker("The next Run (F5) also measures every site: a pass of its own over the kernel's "
                "SASS instructions, each placed on its source line, so each site's line shows "
                "what the hardware counted beside what the model predicts. Live edits never make "
                "it.");
  }
  draw_stalls_header(app, c.stalls);
  same_line_if_room(ImGui::CalcTextSize("Whole file").x + ImGui::GetFrameHeight() * 2);
  ui::checkbox("Whole file", &app.choices.source_whole_file);
  if (c.measured.counts) {
    const std::string what = counted(c.measured.counts->instructions.size(), "memory instruction") +
                             " on their lines; hover a site for its own.";
    if (c.measured.stale)
      stale_note(app);
    else if (c.measured.recorded)
      recorded_text("Per site " + app.results.latest->recorded_on +
                    " (model mode: nothing ran here): " + what);
    else
      note_text("Measured per site on " + app.results.latest->arch.name + ": " + what);
  } else {
    empty_state(c.why_not);
  }
  if (app.results.baseline)
    baseline_heading(app, "Beside each site, the baseline: ");
}

// What the latest run measured on the lines of a person's kernel file.
struct FileMeasured {
  const SiteCounts* counts = nullptr;
  std::map<int, LineMeasurement> lines; // by line number
  bool stale = false;
};

FileMeasured file_measured(const App& app) {
  FileMeasured m;
  const RunResult* latest = app.results.latest ? &*app.results.latest : nullptr;
  if (!latest || latest->kernel_id != app.choices.kernel_id || !latest->site_counts ||
      !latest->site_counts->available || latest->site_counts->line_issues.empty())
    return m;
  m.counts = &*latest->site_counts;
  for (LineMeasurement& line : measured_lines(*m.counts))
    m.lines[line.line] = std::move(line);
  m.stale = app.latest_is_stale();
  return m;
}

// "measured 1,024 instructions;", "global 256 requests,", "4.00 sectors/request", "(1,024
// sectors)" and the same for shared with wavefronts: a measured line's figures, pieces that stay
// whole. Per request counts the loads and stores; traffic that other instructions of the line
// made (atomics) is added after it.
Pieces line_pieces(const LineMeasurement& l) {
  Pieces pieces = {"measured " + format_count(std::llround(l.issued)) + " " +
                   std::string(figure("line_instructions").unit)};
  const auto space = [&](const char* name, double requests, double access, double all,
                         const char* unit) {
    if (requests <= 0 && all <= 0)
      return;
    pieces.back() += ";";
    if (requests > 0) {
      pieces.push_back(std::string(name) + " " + format_count(std::llround(requests)) +
                       " requests,");
      pieces.push_back(format_number(access / requests) + " " + unit + "/request");
      pieces.push_back("(" + format_count(std::llround(access)) + " " + unit + ")");
    }
    if (all > access)
      pieces.push_back(std::string(requests > 0 ? "+ " : name + std::string(" ")) +
                       format_count(std::llround(all - access)) + " " + unit +
                       " of other instructions (atomics)");
  };
  space("global", l.global_requests, l.access_sectors, l.sectors, "sectors");
  space("shared", l.shared_requests, l.access_wavefronts, l.wavefronts, "wavefronts");
  return pieces;
}

// The line's memory instructions as measured, for its tooltip.
std::string line_instructions_text(const SiteCounts& counts, const LineMeasurement& l) {
  std::string text = "Line " + std::to_string(l.line) + ": " +
                     format_count(std::llround(l.issued)) +
                     " warp-level instructions issued (Nsight Compute's Instructions Executed).";
  if (l.memory.empty())
    return text + "\nNo memory instruction.";
  text += "\nIts memory instructions as measured:";
  for (std::size_t i : l.memory)
    text.append("\n").append(instruction_text(counts.instructions[i]));
  return text;
}

// What the model predicts on the lines of a person's kernel file: its sites by line, and the
// notes of lines (or of no line) whose accesses are not all predicted.
struct FilePredicted {
  const LaunchPrediction* prediction = nullptr;
  std::map<int, std::vector<std::size_t>> sites; // by line: indices into prediction->sites
  std::map<int, std::vector<std::string>> notes; // by line (0: none)
};

FilePredicted file_predicted(const App& app) {
  FilePredicted p;
  if (!app.model_is_current() || !app.prediction_on_screen().from_code)
    return p;
  p.prediction = &app.prediction_on_screen();
  for (std::size_t i = 0; i < p.prediction->sites.size(); ++i)
    p.sites[p.prediction->sites[i].line].push_back(i);
  for (const LineNote& note : p.prediction->notes)
    p.notes[note.line].push_back(note.reason);
  return p;
}

void draw_file_header(App& app, const KernelDesc& kernel, const FileMeasured& measured,
                      const FilePredicted& predicted, const Stalls& stalls) {
  const std::shared_ptr<const KernelFile> file = kernel_file_of(kernel.id);
  // The path alone, wrapped: the text's hash is in the Launch panel's description.
  wrapped_text(file ? file->path.string() : kernel.id);
  if (!predicted.prediction)
    note_text(app.model_is_current()
                  ? std::string("Nothing on this kernel's lines is predicted: WarpLens has no "
                                "compiled code of it to run.")
              : app.results.model_error.empty()
                  ? std::string("Predicting each line's accesses from the compiled code...")
                  : "Nothing on this kernel's lines is predicted: the model refused this launch (" +
                        app.results.model_error + ")");
  else
    note_text("Predicted per line from the kernel's compiled code (its PTX, run for " +
              format_count(predicted.prediction->warp_iterations_evaluated) + " of " +
              format_count(predicted.prediction->warp_iterations) +
              " warps): each access line's sectors or wavefronts per request; click one for its "
              "lanes.");
  if (const auto general = predicted.notes.find(0); general != predicted.notes.end())
    for (const std::string& note : general->second)
      error_text("Not predicted: " + note);
  if (!in_model_mode(app)) {
    ui::checkbox("Measure per line", &app.choices.measure_per_site);
    help_marker("The next Run (F5) also measures the kernel's SASS instructions, each placed on "
                "its line of this file, so each line shows what the hardware counted: the "
                "instructions it issued and its memory requests with their sectors or "
                "wavefronts. Live edits never make it.");
  }
  draw_stalls_header(app, stalls);
  if (!measured.counts)
    empty_state(why_not_measured(app, "line"));
  else if (measured.stale)
    stale_note(app);
  else
    note_text("Measured per line on " + app.results.latest->arch.name + ": " +
              counted(measured.counts->instructions.size(), "memory instruction") + " on " +
              counted(measured.lines.size(), "line") + "; hover a line for its instructions.");
}

// A line's predicted sites, each its name (a click opens it in its map) and its figures; and why
// any of its accesses are not predicted.
void draw_file_predictions(App& app, const FilePredicted& predicted, int number) {
  if (const auto sites = predicted.sites.find(number); sites != predicted.sites.end())
    for (const std::size_t s : sites->second) {
      const SitePrediction& site = predicted.prediction->sites[s];
      // Its name without the "line N: " the code's own line number already says.
      const std::string name = site.name.substr(site.name.find(": ") + 2);
      if (ui::link((name + "##" + site.name).c_str(), site.name))
        open_in_map(app, s);
      // Beside the name where it fits (figure_text's first piece), else under it, never wrapped
      // with the next piece set beside its first row.
      figure_text(predicted_pieces(site),
                  wasteful(waste(predicted_per_request(site), ideal_per_request(site)))
                      ? Tone::wasteful
                      : Tone::plain);
    }
  if (const auto notes = predicted.notes.find(number); notes != predicted.notes.end())
    for (const std::string& note : notes->second)
      error_text("not predicted: " + note);
}

// One line of the file, with its predicted and measured figures under it and its instructions
// on hover.
void draw_file_line(App& app, const FileMeasured& measured, const FilePredicted& predicted,
                    const CodeLayout& layout, int number, const std::string& text) {
  const auto found = measured.lines.find(number);
  const bool predicts = predicted.sites.contains(number) || predicted.notes.contains(number);
  if (found == measured.lines.end() && !predicts) {
    draw_code(layout, number, text);
    return;
  }
  const ImVec2 top = ImGui::GetCursorScreenPos();
  draw_code(layout, number, text);
  const float indent = figures_indent(layout, text);
  ImGui::Indent(indent);
  draw_file_predictions(app, predicted, number);
  if (found != measured.lines.end())
    figure_text(line_pieces(found->second), measured.stale ? Tone::greyed : Tone::measured);
  if (measured.counts) // where the line's measured accesses differ from its predicted ones, why
    for (std::size_t i = 0; i < measured.counts->sites.size(); ++i) {
      const SiteMeasurement& site = measured.counts->sites[i];
      const bool first_of_its_group =
          std::all_of(site.measured_with.begin(), site.measured_with.end(),
                      [i](std::size_t other) { return other > i; });
      if (site.line == number && site.flagged && first_of_its_group)
        (measured.stale ? note_text : error_text)("differs from the model: " + site.reason);
    }
  ImGui::Unindent(indent);
  const float left = ImGui::GetWindowPos().x, right = left + ImGui::GetWindowWidth();
  if (const auto sites = predicted.sites.find(number); sites != predicted.sites.end())
    outline_chosen(app, sites->second, top, ImVec2(right, ImGui::GetCursorScreenPos().y));
  if (found == measured.lines.end())
    return;
  if (ImGui::IsWindowHovered() &&
      ImGui::IsMouseHoveringRect(ImVec2(left, top.y), ImVec2(right, ImGui::GetCursorScreenPos().y)))
    hover_text(line_instructions_text(*measured.counts, found->second));
}

// A person's kernel file: its text as last saved, each access line with what the model predicts
// from the compiled code and what was measured on it, and the line a save's problem names drawn
// in the error colour with the problem under it.
void draw_file_source(App& app, const KernelDesc& kernel) {
  const std::shared_ptr<const KernelFile> file = kernel_file_of(kernel.id);
  const bool opened = file && file->path == app.file.path;
  const FileMeasured measured = file_measured(app);
  const FilePredicted predicted = file_predicted(app);
  const Stalls stalls = latest_stalls(app, file ? file->path.filename().string() : std::string());
  draw_file_header(app, kernel, measured, predicted, stalls);
  if (opened && !app.file.problem.empty())
    error_text("The last save does not compile, so the figures are of the version before it: " +
               app.file.problem);
  const std::vector<std::string>* lines = app.kernel_file_lines();
  if (!lines)
    return;
  begin_code_region(app);
  const CodeLayout layout = code_layout(lines->size(), &stalls);
  // A new measurement of another kernel (or the first) is scrolled to: its first line that ran,
  // two lines of context above it, even where the panel is short.
  static std::string scrolled_to_kernel;
  const int first_measured = !measured.lines.empty()    ? measured.lines.begin()->first
                             : !predicted.sites.empty() ? predicted.sites.begin()->first
                                                        : 0;
  const std::string view = kernel.id + ":" + std::to_string(first_measured);
  bool scroll = first_measured > 0 && scrolled_to_kernel != view;
  for (std::size_t i = 0; i < lines->size(); ++i) {
    const int number = static_cast<int>(i + 1);
    if (scroll && number >= first_measured - 2) {
      ImGui::SetScrollHereY(0);
      scrolled_to_kernel = view;
      scroll = false;
    }
    const bool named = opened && number == app.file.problem_line;
    if (named)
      push_error_color();
    draw_file_line(app, measured, predicted, layout, number, (*lines)[i]);
    if (named) {
      pop_error_color();
      error_text(app.file.problem);
      // Scrolled to once per problem: the person then scrolls where they like.
      static std::string scrolled_to;
      if (scrolled_to != app.file.problem) {
        ImGui::SetScrollHereY(0.5f);
        scrolled_to = app.file.problem;
      }
    }
  }
  end_code_region();
}

} // namespace

void draw_code_to_read(App& app) {
  const KernelDesc* kernel = app.kernel();
  if (!kernel)
    return;
  const std::vector<std::string>* file_lines = app.kernel_file_lines();
  const KernelLines* own = nullptr;
  if (kernel->kind == KernelKind::bundled) {
    own = &kernel_lines(*kernel, app.choices.params);
    if (!own->problem.empty()) {
      error_text(own->problem);
      return;
    }
  } else if (kernel->kind != KernelKind::run_time || !file_lines) {
    return;
  }
  const std::vector<std::string>& lines = own ? own->source->lines : *file_lines;
  begin_code_region(app);
  const CodeLayout layout = code_layout(lines.size());
  std::vector<int> shown(lines.size());
  std::iota(shown.begin(), shown.end(), 1);
  if (own)
    shown = shown_lines(*own, app.choices.source_whole_file);
  for (int line : shown) {
    if (line == 0)
      ImGui::TextDisabled("%*s...", layout.digits, "");
    else
      draw_code(layout, line,
                own ? without_marker(lines[static_cast<std::size_t>(line - 1)])
                    : lines[static_cast<std::size_t>(line - 1)]);
  }
  end_code_region();
}

void draw_source(App& app) {
  const KernelDesc* kernel = app.kernel();
  if (!kernel)
    return;
  if (app.lesson_veils(Panel::source)) { // the figures under the lines hold the answer
    note_text("The lesson asks its question: the figures under the lines come back once it is "
              "answered. The code is here to read.");
    draw_code_to_read(app);
    return;
  }
  if (kernel->kind == KernelKind::run_time) {
    draw_file_source(app, *kernel);
    return;
  }
  if (kernel->kind != KernelKind::bundled) {
    empty_state(no_index_math_reason(kernel->kind));
    return;
  }
  const KernelLines& lines = kernel_lines(*kernel, app.choices.params);
  if (!lines.problem.empty()) {
    error_text(lines.problem);
    return;
  }
  const RunResult* model = model_for_panel(app);
  if (model && model->kernel_id != app.choices.kernel_id)
    model = nullptr; // another kernel's sites, while this one's are computed
  const Context context{*kernel,
                        lines,
                        model,
                        measured_sites(app),
                        why_not_measured(app),
                        latest_stalls(app, lines.lines.file)};
  draw_header(app, context);
  draw_code_region(app, context);
}

} // namespace wl::viz
