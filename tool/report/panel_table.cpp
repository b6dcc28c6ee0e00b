#include "report/panel_table.h"

#include "base/text_format.h"

#include <algorithm>

namespace wl {

std::optional<Panel> parse_panel(std::string_view name) {
  const std::string key = lowercase(std::string(name));
  for (const PanelName& row : kPanelTable)
    if (key == row.key || key == lowercase(row.title))
      return row.panel;
  return std::nullopt;
}

std::vector<std::string> panel_keys(bool titles) {
  std::vector<std::string> keys;
  for (const PanelName& row : kPanelTable)
    keys.emplace_back(titles ? row.title : row.key);
  return keys;
}

std::string panel_keys_listed(bool titles) {
  std::string listed;
  for (const std::string& key : panel_keys(titles))
    listed += (listed.empty() ? "" : ", ") + key;
  return listed;
}

std::vector<Panel> panels_named_in(std::string_view note) {
  const std::string lower = lowercase(std::string(note));
  std::vector<Panel> named;
  for (const PanelName& row : kPanelTable)
    if (std::any_of(row.note_words.begin(), row.note_words.end(), [&](std::string_view word) {
          return !word.empty() && lower.find(word) != std::string::npos;
        }))
      named.push_back(row.panel);
  return named;
}

} // namespace wl
