#include "drawing/stall_bars.h"

#include "base/text_format.h"
#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "report/stall_report.h"

#include <algorithm>
#include <array>

#include <imgui.h>

namespace wl::viz {

namespace {

// Reasons of one kind share a hue, so a bar reads by kind before its words are read.
struct ReasonColour {
  std::string_view reason;
  ImVec4 colour;
};
const ImVec4 kGlobal(0.27f, 0.51f, 0.85f, 1), kGlobalQueue(0.45f, 0.68f, 0.95f, 1),
    kShared(0.62f, 0.42f, 0.85f, 1), kSharedQueue(0.78f, 0.6f, 0.95f, 1),
    kBarrier(0.93f, 0.58f, 0.2f, 1), kIssued(0.35f, 0.7f, 0.4f, 1),
    kNotSelected(0.6f, 0.8f, 0.55f, 1), kMath(0.85f, 0.35f, 0.35f, 1), kWait(0.85f, 0.78f, 0.3f, 1),
    kOther(0.55f, 0.55f, 0.55f, 1);
const std::array kReasonColours = {
    ReasonColour{"long_scoreboard", kGlobal},
    ReasonColour{"lg_throttle", kGlobalQueue},
    ReasonColour{"drain", kGlobalQueue},
    ReasonColour{"short_scoreboard", kShared},
    ReasonColour{"mio_throttle", kSharedQueue},
    ReasonColour{"barrier", kBarrier},
    ReasonColour{"membar", kBarrier},
    ReasonColour{"selected", kIssued},
    ReasonColour{"not_selected", kNotSelected},
    ReasonColour{"math_pipe_throttle", kMath},
    ReasonColour{"gmma", kMath},
    ReasonColour{"warpgroup_arrive", kMath},
    ReasonColour{"wait", kWait},
};

} // namespace

std::uint32_t stall_colour(std::string_view reason, float alpha) {
  ImVec4 colour = kOther;
  for (const ReasonColour& c : kReasonColours)
    if (c.reason == reason)
      colour = c.colour;
  colour.w = alpha;
  return ImGui::ColorConvertFloat4ToU32(colour);
}

std::string stall_lines_text(const std::string& lead, const std::vector<StallCount>& reasons,
                             std::uint64_t whole) {
  std::string text = lead;
  for (const StallCount& c : reasons)
    if (c.samples > 0)
      text += "\n" + c.reason + " " + stall_percent(c.samples, whole) + ": " +
              std::string(stall_meaning(c.reason).words);
  return text;
}

void stall_bar(float left, float top, float width, const std::vector<StallCount>& reasons,
               std::uint64_t samples, std::uint64_t whole, bool stale, const std::string& lead) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float height = ImGui::GetTextLineHeight() * 0.7f;
  const float y = top + (ImGui::GetTextLineHeight() - height) / 2;
  const float alpha = stale ? 0.35f : 1;
  draw->AddRect(ImVec2(left, y), ImVec2(left + width, y + height),
                ImGui::GetColorU32(ImGuiCol_Border));
  float x = left;
  for (const StallCount& c : reasons) {
    const float w = width * static_cast<float>(stall_share(c.samples, whole));
    draw->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + height), stall_colour(c.reason, alpha));
    x += w;
  }
  if (ImGui::IsWindowHovered() &&
      ImGui::IsMouseHoveringRect(ImVec2(left, y), ImVec2(left + width, y + height)))
    hover_text(stall_lines_text(lead + ": " + stall_percent(samples, whole) + " of the samples" +
                                    (stale ? " (of another launch)." : "."),
                                reasons, whole));
}

void stall_table(App& app, const RunResult& result) {
  const StallSamples& s = *result.stalls;
  if (!s.available) {
    error_text("Warp stalls not sampled: " + s.reason);
    return;
  }
  const std::uint64_t whole = s.samples();
  note_text("Where the warps waited (PC sampling on " + result.arch.name +
            "): " + format_count(static_cast<std::int64_t>(whole)) +
            " samples, an SM's warp every " + format_count(std::int64_t{1} << s.period) +
            " cycles; " + format_count(static_cast<std::int64_t>(s.dropped_samples)) + " dropped." +
            (s.reason.empty() ? "" : " " + s.reason + "."));
  if (const std::string use = issue_use_text(result); !use.empty())
    wrapped_text(use);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##stalls", 4, flags))
    return;
  ImGui::TableSetupColumn("reason");
  ImGui::TableSetupColumn("samples");
  ImGui::TableSetupColumn("meaning", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("cause");
  table_headers_row();
  for (const StallCount& c : s.launch) {
    if (c.samples == 0)
      continue;
    const StallMeaning& meaning = stall_meaning(c.reason);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float side = ImGui::GetTextLineHeight();
    ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + side, at.y + side),
                                              stall_colour(c.reason));
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine();
    ImGui::TextUnformatted(c.reason.c_str());
    ImGui::TableNextColumn();
    number_cell(stall_percent(c.samples, whole));
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", std::string(meaning.words).c_str());
    ImGui::TableNextColumn();
    if (meaning.panel) {
      ImGui::PushID(c.reason.c_str());
      if (ui::small_button(panel_title(*meaning.panel)))
        app.show_panel(*meaning.panel);
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
  if (!s.unnamed.empty())
    note_text("Counted as other: " + joined(s.unnamed, ", ") + ".");
}

} // namespace wl::viz
