// Launch: choose a kernel from the catalog (with its lesson), its parameters and problem size,
// its block shape (only shapes the kernel allows are ever sent: a refused shape is explained in
// place), the architecture the models use, then Run or Live.

#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "panels/panels.h"
#include "registry.h"

#include <algorithm>
#include <array>
#include <string>

#include <imgui.h>

namespace wl::viz {

namespace {

// Room the panel leaves empty below its last control, measured on the previous frame as if the
// tree and the lesson had their smallest heights: on a tall panel they grow into it, so a large
// screen shows the whole tree and lesson, and a small one keeps every control in view.
float spare_room() { return ImGui::GetStateStorage()->GetFloat(ImGui::GetID("##spare_room"), 0); }

void measure_spare_room(float growth_used) {
  const float spare = ImGui::GetWindowContentRegionMax().y - ImGui::GetCursorPosY() + growth_used;
  ImGui::GetStateStorage()->SetFloat(ImGui::GetID("##spare_room"), std::max(0.0f, spare));
}

// One tree node per family (a person's file: "mine.cu"), its kernels as selectable leaves named
// by their kernel id for scripts; the family on screen starts open.
void draw_families(App& app, const std::vector<const KernelDesc*>& kernels, bool files) {
  const KernelDesc* shown = app.kernel();
  for (std::size_t i = 0; i < kernels.size();) {
    const std::string family = kernel_family(kernels[i]->id);
    std::size_t end = i;
    while (end < kernels.size() && kernel_family(kernels[end]->id) == family)
      ++end;
    if (shown && family == kernel_family(shown->id) &&
        (shown->kind == KernelKind::run_time) == files)
      ImGui::SetNextItemOpen(true, ImGuiCond_Once);
    const std::string node = files ? family + ".cu (yours)" : family;
    if (ui::tree_node(node.c_str())) {
      for (std::size_t k = i; k < end; ++k) {
        const KernelDesc& desc = *kernels[k];
        const std::string label = desc.id.substr(family.size() + 1) + "  -  " + desc.title;
        if (ui::selectable(label.c_str(), desc.id == app.choices.kernel_id, desc.id) &&
            desc.id != app.choices.kernel_id)
          app.select_kernel(desc.id);
        if (desc.id == app.choices.kernel_id && ImGui::IsWindowAppearing())
          ImGui::SetScrollHereY(0.5f);
      }
      ImGui::TreePop();
    }
    i = end;
  }
}

// A person's files first, then the bundled families. A long title scrolls sideways rather than
// being cut at the edge.
void draw_catalog(App& app, float height) {
  ImGui::BeginChild("##catalog", ImVec2(0, height), true, ImGuiWindowFlags_HorizontalScrollbar);
  std::vector<const KernelDesc*> files = run_time_kernels();
  std::stable_sort(files.begin(), files.end(), [](const KernelDesc* a, const KernelDesc* b) {
    return kernel_family(a->id) < kernel_family(b->id);
  });
  draw_families(app, files, true);
  std::vector<const KernelDesc*> bundled;
  for (const KernelDesc& k : all_kernels())
    bundled.push_back(&k);
  draw_families(app, bundled, false);
  ImGui::EndChild();
}

// The kernel's teaching note, and a button for each panel it points at: hovering the note or a
// button outlines those panels; a click opens the panel and shows its tab.
void draw_lesson(App& app, const KernelDesc& kernel, float height) {
  ImGui::TextUnformatted(kernel.id.c_str());
  empty_state(kernel.title); // wrapped: a long title never widens the panel
  ImGui::BeginChild("##lesson", ImVec2(0, height), true);
  if (app.lesson_veils(Panel::launch)) // the note states the figures a question asks
    empty_state("The kernel's note is covered while the lesson asks its question: it gives the "
                "answer away.");
  else
    wrapped_text(kernel.lesson);
  ImGui::EndChild();
  const std::vector<Panel> named = panels_named_in(kernel.lesson);
  if (ImGui::IsItemHovered())
    app.frame.highlighted = named;
  if (named.empty())
    return;
  ImGui::TextDisabled("The note points at:");
  for (Panel panel : named) {
    same_line_if_room(ImGui::CalcTextSize(panel_title(panel)).x +
                      2 * ImGui::GetStyle().FramePadding.x);
    if (ui::small_button(panel_title(panel)))
      app.show_panel(panel);
    if (ImGui::IsItemHovered())
      app.frame.highlighted = {panel};
  }
}

// The next field `ems` font sizes wide, narrower where the panel leaves less room for it, its
// label and the help marker beside it.
void set_field_width(float ems, const char* label) {
  const float beside = labelled_field_width(0, label) + ImGui::GetStyle().ItemSpacing.x +
                       ImGui::CalcTextSize("(?)").x;
  ImGui::SetNextItemWidth(
      std::min(ImGui::GetFontSize() * ems, ImGui::GetContentRegionAvail().x - beside));
}

// A refusal that belongs to this group of controls, shown under them where the eye is; a new one
// is scrolled into sight (the block field sits low in the panel at 1280x720).
void draw_refusal_of(const App& app, Choices::Refusal::Where where) {
  const Choices::Refusal refusal = app.choices.refusal(where);
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID seen = ImGui::GetID(where == Choices::Refusal::Where::block ? "##block_refusal"
                                                                            : "##params_refusal");
  const int text_hash = static_cast<int>(std::hash<std::string>{}(refusal.text));
  const bool is_new = storage->GetInt(seen, 0) != text_hash;
  storage->SetInt(seen, text_hash);
  if (refusal.text.empty())
    return;
  error_text("Not sent: " + refusal.text);
  if (is_new)
    ImGui::SetScrollHereY(1.0f);
}

// One parameter of the kernel on screen: a combo when the kernel lists its choices, else a number
// field; a value out of range is refused under the parameters, never clamped.
void draw_param(App& app, const ParamSpec& spec) {
  const auto found = app.choices.params.find(spec.name);
  if (found == app.choices.params.end())
    return; // only the chosen kernel's own parameters are edited
  const std::int64_t value = found->second;
  set_field_width(9, spec.name.c_str());
  if (!spec.choices.empty()) {
    const std::string current = std::to_string(value);
    if (ui::begin_combo(spec.name.c_str(), current.c_str())) {
      for (std::int64_t choice : spec.choices)
        if (ui::selectable(std::to_string(choice).c_str(), choice == value))
          app.choices.set_param(spec.name, choice);
      ImGui::EndCombo();
    }
  } else { // typed as text: what was typed stays on screen, refused in one line until it is fixed
    const auto typed = app.choices.param_typed.find(spec.name);
    std::array<char, 32> text{};
    const std::string shown =
        typed != app.choices.param_typed.end() ? typed->second : std::to_string(value);
    std::copy_n(shown.begin(), std::min(shown.size(), text.size() - 1), text.begin());
    if (ui::input_text(spec.name.c_str(), text.data(), text.size()))
      app.choices.param_field_edited(spec.name, text.data());
    if (ImGui::IsItemDeactivatedAfterEdit())
      app.choices.param_field_committed(spec.name);
  }
  help_marker(
      (spec.help + " (" + std::to_string(spec.min) + " to " + std::to_string(spec.max) + ")")
          .c_str());
}

void draw_params(App& app, const KernelDesc& kernel) {
  if (kernel.params.empty())
    return;
  ImGui::TextDisabled("Problem size");
  for (const ParamSpec& spec : kernel.params)
    if (spec.is_size)
      draw_param(app, spec);
  if (std::any_of(kernel.params.begin(), kernel.params.end(),
                  [](const ParamSpec& s) { return !s.is_size; })) {
    ImGui::TextDisabled("Parameters");
    for (const ParamSpec& spec : kernel.params)
      if (!spec.is_size)
        draw_param(app, spec);
  }
  draw_refusal_of(app, Choices::Refusal::Where::parameters);
}

// The block as a person writes it ("256", "16x8"), and the presets the kernel allows for these
// parameters.
void draw_block_editor(App& app, const KernelDesc& kernel) {
  ImGui::TextDisabled("Block shape");
  if (kernel.kind == KernelKind::library) {
    wrapped_text(kernel.allowed_blocks);
    return;
  }
  set_field_width(9, "block");
  ui::input_text("block", app.choices.block_field.data(), app.choices.block_field.size());
  if (ImGui::IsItemDeactivatedAfterEdit()) // Enter or leaving the field: the whole value
    app.choices.block_field_committed();
  help_marker("Threads per block as X, XxY or XxYxZ, e.g. 256 or 16x16.");
  empty_state(("allowed: " + kernel.allowed_blocks).c_str());
  if (!app.choices.block_note.empty())
    note_text(app.choices.block_note);
  draw_refusal_of(app, Choices::Refusal::Where::block);
  bool first = true;
  for (const BlockShape& preset : allowed_presets(kernel, app.choices.params)) {
    const std::string text = format_block(preset);
    if (!first)
      same_line_if_room(ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    first = false;
    if (ui::small_button(text.c_str()))
      app.choices.set_block(preset);
  }
}

void draw_arch_picker(App& app) {
  set_field_width(12, "arch");
  if (ui::begin_combo("arch", app.arch().id.c_str())) {
    for (std::size_t i = 0; i < app.choices.arches.size(); ++i) {
      const std::string label =
          app.choices.arches[i].id + "  (" + app.choices.arches[i].sm_name() + ")";
      if (ui::selectable(label.c_str(), static_cast<int>(i) == app.choices.arch_index,
                         app.choices.arches[i].id))
        app.choices.arch_index = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
  help_marker(
      (app.arch().name + ": " + std::to_string(app.arch().sm_count) + " SMs. " + app.arch().source)
          .c_str());
}

// Run is disabled while the request is invalid; the reason is shown beside the controls it
// belongs to, and named here.
void draw_run_controls(App& app) {
  const Choices::Refusal refusal = app.choices.refusal();
  ImGui::BeginDisabled(!refusal.text.empty());
  if (ui::button("Run (F5)"))
    app.run();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ui::checkbox("Live (L)", &app.choices.live);
  if (refusal.text.empty()) {
    if (!app.results.last_error.empty())
      error_text(app.results.last_error);
    else if (app.results.latest && !app.latest_is_stale() && !app.results.latest->timing)
      note_text("Model figures only: " + app.untimed_reason());
  } else if (refusal.where == Choices::Refusal::Where::launch) {
    error_text("Not sent: " + refusal.text);
  } else {
    error_text(refusal.where == Choices::Refusal::Where::block
                   ? "Not sent: the block above is refused"
                   : "Not sent: a parameter above is refused");
  }
}

// Pin the shown run as the baseline the panels compare with; clear it.
void draw_baseline_controls(App& app) {
  ImGui::BeginDisabled(!app.results.latest || app.latest_is_stale());
  if (ui::button("Pin as baseline (B)"))
    app.pin_baseline();
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) && app.latest_is_stale())
    hover_text("The launch on screen has not been run yet: F5 (or Live) first.");
  if (!app.results.baseline)
    return;
  ImGui::SameLine();
  if (ui::button("Clear baseline")) {
    app.results.baseline.reset();
    return;
  }
  wrapped_textf("baseline: %s", app.baseline_label().c_str());
}

} // namespace

void draw_launch_editors(App& app) {
  const KernelDesc* kernel = app.kernel();
  if (!kernel)
    return;
  draw_params(app, *kernel);
  ImGui::Separator();
  draw_block_editor(app, *kernel);
}

void draw_launch(App& app) {
  // The tree and the lesson: 9 and 6 lines, grown into the spare room up to 20 and 16.
  const float line = ImGui::GetTextLineHeightWithSpacing(), spare = spare_room();
  const float tree = std::min(9 * line + 0.6f * spare, 20 * line),
              lesson = std::min(6 * line + 0.4f * spare, 16 * line);
  draw_catalog(app, tree);
  const KernelDesc* kernel =
      app.kernel(); // after the catalog: a click there may have chosen another
  if (!kernel) {
    empty_state("Start here: choose a kernel from the tree above.");
    measure_spare_room(tree - 9 * line);
    return;
  }
  note_text("Pick a kernel in the tree and read its lesson; change its block or parameters and the "
            "panels "
            "follow. Run (F5) measures.");
  draw_lesson(app, *kernel, lesson);
  draw_launch_editors(app);
  ImGui::Separator();
  draw_arch_picker(app);
  draw_run_controls(app);
  ImGui::Separator();
  draw_baseline_controls(app);
  measure_spare_room(tree - 9 * line + lesson - 6 * line);
}

} // namespace wl::viz
