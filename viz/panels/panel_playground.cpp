// Index playground: a person types the index of a warp's access as CUDA writes it, with the
// element size, global or shared, an optional swizzle of it, the block and the warp, and sees at
// once, with no GPU, the same drawings as a bundled kernel's site: the warp map of lanes on
// 32-byte sectors (requests, sectors per request), or the bank grid (conflict degree,
// wavefronts). The model is model/index_expression (muParser reads the text; nothing is run).

#include "base/error.h"
#include "base/text_format.h"
#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "model/block_text.h"
#include "panels/panels.h"
#include "workflows/memory_maps.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cstdint>

#include <imgui.h>

namespace wl::viz {

namespace {

constexpr int kElementSizes[] = {1, 2, 4, 8, 16};

// The rest of the row, less its label: a long expression stays in sight.
void full_width_for(const char* label) {
  ImGui::SetNextItemWidth(
      -(ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemInnerSpacing.x * 2));
}

void draw_fields(PlaygroundChoice& c) {
  full_width_for("swizzle of i");
  ui::input_text("index", c.expression.data(), c.expression.size());
  full_width_for("swizzle of i");
  ui::input_text("swizzle of i", c.swizzle.data(), c.swizzle.size());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  if (ui::begin_combo("element", format("%d B", c.element_bytes).c_str())) {
    for (int bytes : kElementSizes)
      if (ui::selectable(format("%d B", bytes).c_str(), bytes == c.element_bytes))
        c.element_bytes = bytes;
    ImGui::EndCombo();
  }
  same_line_if_room(ImGui::GetFontSize() * 6);
  ui::checkbox("shared memory", &c.shared);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ui::input_text("block", c.block.data(), c.block.size());
  BlockShape block;
  try {
    block = parse_block(c.block.data());
  } catch (const UsageError&) {
    return; // the model says what is wrong with it, under the fields
  }
  const int warps = block.threads() <= 1024 ? static_cast<int>((block.threads() + 31) / 32) : 1;
  c.warp = std::clamp(c.warp, 0, warps - 1);
  if (warps > 1) {
    same_line_if_room(labelled_field_width(ImGui::GetFontSize() * 10, "warp"));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    ui::slider_int("warp", &c.warp, 0, warps - 1);
  }
}

// Which bytes the warp touches, from 0, and how many of its lanes take part: the map's rows are
// numbered from its first line, so a later warp would look like the first.
void draw_extent(const PlaygroundWarp& warp) {
  std::uint64_t low = UINT64_MAX, high = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (warp.access.active(lane)) {
      low = std::min(low, warp.access.address[lane]);
      high = std::max(high, warp.access.address[lane] + warp.access.width - 1);
    }
  const int lanes = std::popcount(warp.access.active_mask);
  wrapped_textf(
      "bytes %llu to %llu%s", static_cast<unsigned long long>(low),
      static_cast<unsigned long long>(high),
      lanes < kWarpSize
          ? format("; %d of 32 lanes take part (the block ends inside the warp)", lanes).c_str()
          : "");
}

void draw_global(const PlaygroundWarp& warp) {
  const WarpMap map = global_warp_map(warp.access);
  const GlobalAccess& a = map.access;
  wrapped_textf("%d request, %d sector%s per request (ideal %d); %d of %d fetched bytes used",
                a.requests, a.sectors, a.sectors == 1 ? "" : "s", a.ideal_sectors, a.bytes_used,
                a.bytes_fetched);
  note_text("A row per 128-byte line, four 32-byte sectors each; a coloured bar per lane over "
            "its bytes; grey: fetched, not used.");
  warp_map(map);
}

void draw_shared(const PlaygroundWarp& warp) {
  const SharedAccess a = analyse_shared(warp.access);
  wrapped_textf("%d wavefront%s per request (ideal %d): %d-way, %d excess", a.wavefronts,
                a.wavefronts == 1 ? "" : "s", a.ideal_wavefronts, a.conflict_degree,
                a.excess_wavefronts);
  note_text("32 bank columns (4-byte words, bank = word mod 32), a row per wavefront: the lanes "
            "each bank serves in that pass; * a broadcast of one word.");
  bank_grid(bank_map(warp.access), warp.access.width);
}

// The lanes' indices, eight to a line, as the expression gave them.
void draw_indices(const PlaygroundWarp& warp) {
  std::string line;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!warp.access.active(lane))
      continue;
    line += format("%2d:%-6lld ", lane, static_cast<long long>(warp.index[lane]));
    if (lane % 8 == 7) {
      ImGui::TextUnformatted(line.c_str());
      line.clear();
    }
  }
  if (!line.empty())
    ImGui::TextUnformatted(line.c_str());
}

} // namespace

IndexPlayground playground_of(const PlaygroundChoice& c) {
  IndexPlayground p;
  p.expression = c.expression.data();
  p.swizzle = c.swizzle.data();
  p.element_bytes = c.element_bytes;
  p.space = c.shared ? MemorySpace::shared : MemorySpace::global;
  p.block = parse_block(c.block.data());
  p.warp = c.warp;
  return p;
}

void draw_playground(App& app) {
  PlaygroundChoice& choice = app.choices.playground;
  note_text("Type a warp's index as CUDA writes it (" + std::string(kIndexNames) +
            "; + - * / % << >> & | ^ min max); the swizzle is of i, the index. Each lane's byte "
            "address is the index times the element size.");
  draw_fields(choice);
  ImGui::Separator();
  if (app.lesson_veils(Panel::playground)) {
    empty_state("The figures of this index are covered while the lesson asks its question: "
                "answer it in the Lessons panel.");
    return;
  }
  try {
    const PlaygroundWarp warp = evaluate_playground(playground_of(choice));
    if (warp.access.active_mask == 0) {
      note_text("No lane of this warp is inside the block.");
      return;
    }
    draw_extent(warp);
    if (choice.shared)
      draw_shared(warp);
    else
      draw_global(warp);
    if (ui::tree_node("each lane's index")) {
      draw_indices(warp);
      ImGui::TreePop();
    }
  } catch (const UsageError& e) {
    error_text(e.what());
  }
}

} // namespace wl::viz
