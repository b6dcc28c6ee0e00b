#include "drawing/panel_parts.h"

#include "base/text_format.h"
#include "drawing/controls.h"
#include "model/launch_model.h"
#include "registry.h"
#include "report/counter_comparison.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <imgui.h>

namespace wl::viz {

void block_and_warp_fields(const BlockShape& grid, std::array<int, 3>& block, int& warp) {
  const float field = ImGui::GetFontSize() * 6;
  ImGui::PushItemWidth(field);
  const std::array<int, 3> sides{grid.x, grid.y, grid.z};
  constexpr std::array kLabels = {"block x", "block y", "block z"};
  bool first = true;
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && sides[i] <= 1)
      continue; // a grid of one block along y or z needs no field
    if (!first)
      same_line_if_room(labelled_field_width(field, kLabels[i]));
    first = false;
    ui::input_int(kLabels[i], &block[i]);
  }
  same_line_if_room(labelled_field_width(field, "warp"));
  ui::input_int("warp", &warp);
  ImGui::PopItemWidth();
}

namespace {

// Two launches do the same work when they are variants of one family with the same parameters,
// moving the same bytes and doing the same arithmetic (transpose/smem and transpose/smem_padded).
bool same_work(const RunResult& a, const RunResult& b) {
  return kernel_family(a.kernel_id) == kernel_family(b.kernel_id) && a.params == b.params &&
         a.bytes_moved == b.bytes_moved && a.flops == b.flops;
}

} // namespace

void baseline_heading(const App& app, const std::string& lead) {
  note_text(lead + app.baseline_label());
  if (!app.results.baseline || app.results.baseline->kernel_id == app.choices.kernel_id)
    return;
  if (app.results.latest && same_work(*app.results.baseline, *app.results.latest))
    note_text("The baseline is another variant of the same work (" +
              app.results.baseline->kernel_id +
              "): the change is what the variant does differently.");
  else
    recorded_text("The baseline is another kernel (" + app.results.baseline->kernel_id +
                  "): the change compares different work, not a tuning of " +
                  app.choices.kernel_id + ".");
}

const RunResult* model_for_panel(const App& app) {
  const RunResult* model = app.model_view();
  const std::string problem = app.request_problem();
  const std::string& refused = app.results.model_error; // the model's own refusal of it
  if (!model) {
    empty_state(!problem.empty()   ? "No figures: the launch is not valid (" + problem + ")"
                : !refused.empty() ? "No figures: the model refused this launch (" + refused + ")"
                                   : std::string("Computing the model of this launch..."));
    return nullptr;
  }
  if (app.model_is_current())
    return model;
  if (problem.empty() && refused.empty())
    note_text("Updating to the launch on screen...");
  else
    recorded_text("Figures of the last valid launch (" + model->kernel_id + ", block " +
                  format_block(model->launch.block) +
                  "): the one on screen is refused, see Launch.");
  return model;
}

std::string no_file_sites_text(const LaunchPrediction& prediction, std::string_view accesses) {
  if (prediction.warp_iterations_evaluated == 0 && !prediction.notes.empty())
    return "Nothing predicted: " + prediction.notes.front().reason + ".";
  return "No " + std::string(accesses) + " on the file's lines in the blocks the model ran.";
}

bool kernel_has_sites(const App& app, MemorySpace space) {
  if (!app.kernel() || !sites_in(app.sites_on_screen(), space).empty())
    return true;
  const KernelKind kind = app.kernel()->kind;
  const bool global = space == MemorySpace::global;
  if (kind == KernelKind::run_time) // its sites are the lines its prediction found
    empty_state(app.model_is_current()
                    ? no_file_sites_text(app.prediction_on_screen(),
                                         global ? "global access" : "shared-memory access")
                : app.results.model_error.empty()
                    ? std::string("The model of this launch is being made...")
                    : "Nothing predicted: the model refused this launch (" +
                          app.results.model_error + ")");
  else
    empty_state(kind != KernelKind::bundled ? no_index_math_reason(kind)
                : global                    ? "This kernel has no global access site."
                                            : "This kernel uses no shared memory.");
  return false;
}

std::optional<ChosenWarp> warp_chooser(const App& app, MemorySpace space, MapChoice& choice) {
  if (const std::string problem = app.request_problem(); !problem.empty()) {
    error_text(problem);
    return std::nullopt;
  }
  const KernelDesc& kernel = *app.kernel();
  const LaunchShape launch =
      make_launch(kernel, app.choices.params, app.block(), app.arch().sm_count);
  const LaunchPrediction& prediction = app.prediction_on_screen();
  const int sm = app.arch().cc_major * 10 + app.arch().cc_minor;
  const std::vector<SiteView> views = site_views(kernel, launch, prediction);
  const std::vector<int> sites = sites_in(views, space);
  if (sites.empty()) // the panel said so (kernel_has_sites)
    return std::nullopt;
  std::optional<ChosenWarp> chosen = choose_warp(kernel, launch, prediction, space, choice, sm);
  // As wide as the longest site name ("line 24: shared load, 4 B" was cut at ten font sizes),
  // no wider than the panel leaves beside the label.
  float names = ImGui::GetFontSize() * 10;
  for (const int site : sites)
    names =
        std::max(names, ImGui::CalcTextSize(views[static_cast<std::size_t>(site)].name.c_str()).x);
  const float combo = names + ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetFrameHeight();
  ImGui::PushItemWidth(std::min(combo, ImGui::GetContentRegionAvail().x -
                                           ImGui::CalcTextSize("site").x -
                                           ImGui::GetStyle().ItemInnerSpacing.x));
  if (ui::begin_combo("site", views[static_cast<std::size_t>(chosen->site)].name.c_str())) {
    for (int i = 0; i < static_cast<int>(sites.size()); ++i)
      if (ui::selectable(views[static_cast<std::size_t>(sites[i])].name.c_str(), i == choice.site))
        choice.site = i;
    ImGui::EndCombo();
  }
  ImGui::PopItemWidth();
  block_and_warp_fields(launch.grid, choice.block, choice.warp);
  if (chosen->iterations > 1) {
    int iteration = static_cast<int>(choice.iteration);
    same_line_if_room(labelled_field_width(ImGui::GetFontSize() * 6, "iteration"));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ui::input_int("iteration", &iteration))
      choice.iteration = iteration;
  }
  note_text(
      "grid " + format_block(launch.grid) + ", " + std::to_string(chosen->warps) +
      " warps per block" +
      (chosen->iterations > 1 ? ", " + std::to_string(chosen->iterations) + " iterations" : ""));
  chosen = choose_warp(kernel, launch, prediction, space, choice, sm); // edits brought in range
  if (chosen->access.active_mask == 0) {
    empty_state(
        "No lane of this warp makes this access in this iteration (a guard or a partial tile).");
    return std::nullopt;
  }
  return chosen;
}

float site_table_height(int sites) {
  // A few sites in view, the header and the sideways scrollbar; the table scrolls when there are
  // more. No empty rows: in a 720-pixel window they pushed the map below the panel's edge.
  const float rows = std::min(static_cast<float>(sites), 3.5f) + 1.3f;
  return ImGui::GetTextLineHeightWithSpacing() * rows + ImGui::GetStyle().ScrollbarSize;
}

bool begin_site_table(const char* id, const std::vector<SiteColumn>& columns, float height) {
  // Columns as wide as their content; in a narrow panel the table scrolls sideways with the site's
  // name kept in view, rather than cut a number short.
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_ScrollY; // the site column and header stay in view
  if (height <= 0)
    height = site_table_height(4);
  if (!ImGui::BeginTable(id, static_cast<int>(columns.size()) + 1, flags, ImVec2(0, height)))
    return false;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("site");
  for (const SiteColumn& column : columns) {
    std::string name(figure_header(figure(column.figure)));
    ImGui::TableSetupColumn((column.with_ideal ? name + " (ideal)" : name).c_str());
  }
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  ImGui::TableNextColumn();
  ImGui::TableHeader("site");
  if (ImGui::IsItemHovered())
    hover_text("One global or shared load or store in the kernel's source, and its width per "
               "lane.");
  int index = 1;
  for (const SiteColumn& column : columns) {
    ImGui::TableNextColumn();
    ImGui::TableHeader(ImGui::TableGetColumnName(index++));
    const Figure& f = figure(column.figure);
    if (ImGui::IsItemHovered())
      hover_text(std::string(f.meaning) + (f.unit.empty() ? "" : " (" + std::string(f.unit) + ")") +
                 (column.with_ideal ? "; the ideal in brackets" : "") + ".");
  }
  return true;
}

std::string site_cell(const Figure& f, const SitePrediction& site, bool with_ideal) {
  if (!f.site_predicted || !site_has(f, site.space))
    return "-";
  const auto written = [&](double value) {
    std::string text = figure_text(f, value);
    std::string unit = " "; // appended, not " " + unit: GCC 12's -Wrestrict
    unit.append(f.unit);
    if (f.unit.size() > 1 && std::isalpha(static_cast<unsigned char>(f.unit[0])) &&
        text.ends_with(unit))
      text.resize(text.size() - unit.size());
    return text;
  };
  std::string text = written(f.site_predicted(site));
  if (with_ideal && f.site_ideal)
    text.append(" (").append(written(f.site_ideal(site))).append(")");
  return text;
}

namespace {

// Worse than its ideal by more than 1 %: the cell a person should look at.
bool wasteful(const Figure& f, const SitePrediction& site) {
  if (!f.site_ideal || !site_has(f, site.space) || f.better == Better::neither)
    return false;
  const double value = f.site_predicted(site), ideal = f.site_ideal(site);
  return f.better == Better::lower ? value > ideal * 1.01 : value < ideal * 0.99;
}

void site_name_cell(const SitePrediction& site) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(site.name.c_str());
  if (ImGui::IsItemHovered())
    hover_text(access_kind(site.space, site.op) + ", " + std::to_string(site.width) +
               " bytes per lane" + (site.exact ? "" : "; estimated from a sample of warps"));
}

} // namespace

void site_figure_table(const char* id, const LaunchPrediction& prediction,
                       std::optional<MemorySpace> space, const std::vector<SiteColumn>& columns,
                       float height) {
  if (!begin_site_table(id, columns, height))
    return;
  for (const SitePrediction& site : prediction.sites) {
    if (space && site.space != *space)
      continue;
    site_name_cell(site);
    for (const SiteColumn& column : columns) {
      ImGui::TableNextColumn();
      const Figure& f = figure(column.figure);
      const std::string text = site_cell(f, site, column.with_ideal);
      if (!wasteful(f, site)) {
        number_cell(text);
        continue;
      }
      wasteful_text(text);
      if (ImGui::IsItemHovered())
        hover_text("Worse than its ideal (" + std::string(f.ideal) +
                   "): " + std::string(f.meaning) + ".");
    }
  }
  ImGui::EndTable();
}

namespace {

// A counter's value as its figure writes it, less the unit the name's column gives: "94.5" for an
// achieved occupancy in %, "4,194,304" for sectors.
std::string counter_number(const ComparisonRow& row, double value) {
  const bool whole = !row.figure || row.figure->format == FigureFormat::count;
  return format_number(value, whole ? 0 : row.figure->decimals);
}

} // namespace

void counter_table(const char* id, const RunResult& result, const App& app,
                   std::optional<Panel> panel, int least_lines) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_ScrollY;
  const CounterResult* baseline = app.results.baseline && app.results.baseline->counters &&
                                          app.results.baseline->counters->available
                                      ? &*app.results.baseline->counters
                                      : nullptr;
  if (app.results.baseline && !baseline)
    note_text("The baseline (" + app.baseline_label() + ") has no counters.");
  std::vector<ComparisonRow> rows;
  for (ComparisonRow& row : compare_counters(result))
    if (!panel || (row.figure && row.figure->panel == *panel))
      rows.push_back(std::move(row));
  // The reasons go under the table, wrapped to the panel's width, where a narrow panel still
  // shows them whole; the table is no taller than its rows and leaves them room.
  std::vector<const ComparisonRow*> flagged;
  for (const ComparisonRow& row : rows)
    if (row.flagged)
      flagged.push_back(&row);
  // The names wrap in at most 35 % of the width, so the numbers beside them fit a narrow panel
  // rather than being cut where the table scrolls.
  float names_width = ImGui::CalcTextSize("counter").x;
  for (const ComparisonRow& row : rows)
    names_width =
        std::max(names_width, ImGui::CalcTextSize((row.display + " (" + row.unit + ")").c_str()).x);
  names_width = std::min(names_width, 0.35f * ImGui::GetContentRegionAvail().x);
  // As tall as its rows as wrapped (a name on two lines makes a row of two), so a panel drawn
  // alone for its picture shows every row, and no taller.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float spacing = line - ImGui::GetTextLineHeight();
  float rows_height = 2.0f * line; // the headers and a margin
  for (const ComparisonRow& row : rows)
    rows_height += ImGui::CalcTextSize((row.display + " (" + row.unit + ")").c_str(), nullptr,
                                       false, names_width)
                       .y +
                   spacing;
  const float room = std::max(least_lines * line, ImGui::GetContentRegionAvail().y -
                                                      (flagged.empty() ? 0 : line * 1.5f));
  const float height =
      std::min(rows_height, flagged.empty() ? room : std::max(room * 0.6f, 6 * line));
  const int columns = 4 + (baseline ? 2 : 0);
  if (!ImGui::BeginTable(id, columns, flags, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(1, 1); // the counter's name stays while the table scrolls sideways
  ImGui::TableSetupColumn("counter", ImGuiTableColumnFlags_WidthFixed, names_width);
  ImGui::TableSetupColumn("predicted");
  ImGui::TableSetupColumn("measured");
  ImGui::TableSetupColumn("difference");
  if (baseline) {
    ImGui::TableSetupColumn(("baseline: " + app.baseline_label()).c_str());
    ImGui::TableSetupColumn("change");
  }
  table_headers_row();
  for (const ComparisonRow& row : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    wrapped_textf("%s (%s)", row.display.c_str(), row.unit.c_str());
    if (ImGui::IsItemHovered())
      hover_text(row.figure ? row.key + ": " + std::string(row.figure->meaning) : row.key);
    ImGui::TableNextColumn();
    number_cell(row.predicted ? counter_number(row, *row.predicted) : "-");
    ImGui::TableNextColumn();
    number_cell(counter_number(row, row.measured));
    ImGui::TableNextColumn();
    if (!row.predicted)
      ImGui::TextDisabled("-");
    else if (row.flagged)
      error_text(difference_text(row));
    else
      number_cell(difference_text(row));
    if (baseline) {
      const CounterValue* then = baseline->find(row.key);
      ImGui::TableNextColumn();
      number_cell(then ? format_number(then->value, 0) : "-");
      ImGui::TableNextColumn();
      number_cell(change_text(row.measured, then ? std::optional(then->value) : std::nullopt,
                              row.unit == "%"));
    }
  }
  ImGui::EndTable();
  if (!flagged.empty())
    ImGui::TextDisabled("Why they differ (over 2 %%):");
  for (const ComparisonRow* row : flagged)
    wrapped_textf("%s: %s", row->display.c_str(),
                  row->reason.empty() ? "no known reason" : row->reason.c_str());
}

void modelled_against_baseline(const RunResult& model, const App& app, Panel panel) {
  if (!app.results.baseline)
    return;
  const RunResult& then = *app.results.baseline;
  baseline_heading(app, "Modelled, against the baseline ");
  std::vector<const Figure*> shown;
  for (const Figure& figure : all_figures())
    if (figure.counter && figure.predicted && figure.panel == panel &&
        (figure.predicted(model) || figure.predicted(then)))
      shown.push_back(&figure);
  // As wide as its content; in a narrow panel it scrolls sideways with the figure's name in view.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float height =
      (static_cast<float>(shown.size()) + 1.5f) * line + ImGui::GetStyle().ScrollbarSize;
  const std::string id = std::string("##modelled_baseline_") + panel_name(panel);
  if (!ImGui::BeginTable(id.c_str(), 4,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX,
                         ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (const char* header : {"figure", "now", "baseline", "change"})
    ImGui::TableSetupColumn(header);
  table_headers_row();
  for (const Figure* shown_figure : shown) {
    const Figure& figure = *shown_figure;
    const std::optional<double> now = figure.predicted(model), before = figure.predicted(then);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(figure_label(figure).c_str());
    if (ImGui::IsItemHovered())
      hover_text(std::string(figure.meaning));
    ImGui::TableNextColumn();
    number_cell(now ? format_number(*now, 0) : "-");
    ImGui::TableNextColumn();
    number_cell(before ? format_number(*before, 0) : "-");
    ImGui::TableNextColumn();
    number_cell(change_text(now, before, figure.unit == "%"));
  }
  ImGui::EndTable();
}

bool counters_line(const RunResult& result, const std::string& what) {
  if (!result.counters || !result.counters->available) {
    note_text("Measured " + what + ": " +
              (!result.counters ? "no counters in this result (Run with a GPU)"
                                : result.counters->reason));
    return false;
  }
  if (!result.recorded_on.empty())
    recorded_text("Measured " + what + " " + result.recorded_on);
  return true;
}

const RunResult* result_or_why_not(const App& app) {
  const RunResult* result = app.result_on_screen();
  if (!result) {
    const std::string problem = app.request_problem();
    empty_state(problem.empty() ? "Computing the launch's figures..."
                                : "No figures: the launch is not valid (" + problem + ")");
  }
  return result;
}

bool in_model_mode(const App& app) {
  if (app.source && app.source->mode().starts_with("model mode"))
    return true;
  return app.results.latest &&
         (!app.results.latest->timing || !app.results.latest->recorded_on.empty());
}

bool stale_note(const App& app) {
  if (!app.latest_is_stale())
    return false;
  // In model mode they are the recording's figures, not a measurement made here; with no
  // recording of that launch, the model's alone.
  const RunResult& shown = *app.results.latest;
  const char* kind = !shown.recorded_on.empty()       ? "Recorded figures "
                     : shown.timing || shown.counters ? "Measured figures "
                                                      : "Model figures ";
  recorded_text(kind + app.stale_note());
  return true;
}

MeasuredScope::MeasuredScope(const App& app) : stale(stale_note(app)) {
  if (stale)
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
}

MeasuredScope::~MeasuredScope() {
  if (stale)
    ImGui::PopStyleColor();
}

void launch_figure_rows(const RunResult& result, Panel panel, bool predicted,
                        std::string_view part) {
  for (const Figure* f : launch_figures())
    if (f->panel == panel && f->part == part && (predicted ? !f->measured : f->measured != nullptr))
      if (const std::optional<std::string> text = figure_text(*f, result))
        figure_row(*f, *text);
}
void draw_memory_panel(App& app, const MemoryPanel& shape, const std::function<void()>& draw_warp) {
  const bool has_sites = kernel_has_sites(app, shape.space); // said first, where it is seen
  const RunResult* model = app.model_view();
  if (!model || model->kernel_id != app.choices.kernel_id)
    model = nullptr;
  if (model && has_sites) {
    const auto sites =
        std::count_if(model->prediction.sites.begin(), model->prediction.sites.end(),
                      [&](const SitePrediction& site) { return site.space == shape.space; });
    site_figure_table(shape.sites_id, model->prediction, shape.space, shape.columns,
                      site_table_height(static_cast<int>(sites)));
    modelled_against_baseline(*model, app, shape.panel);
    ImGui::Separator();
  }
  if (has_sites)
    draw_warp();
  if (model && app.results.latest && app.results.latest->kernel_id == app.choices.kernel_id) {
    ImGui::Separator();
    MeasuredScope scope(app);
    if (counters_line(*app.results.latest, shape.measured))
      counter_table(shape.counters_id, *app.results.latest, app, shape.panel, shape.counter_lines);
  }
}

} // namespace wl::viz
