#pragma once
// User stories: each test plays a script of what a person does (script.h) through the real
// `warplens --headless --script`, as synthetic mouse and keyboard input, then reads the sidecars
// of the screenshots it took. No state is set directly. The worker measures where there is a GPU
// and answers in model mode where there is none, as it does for a person.

#include "../unit/test_support.h"
#include "gui_test_support.h"

#include <cctype>
#include <string>

namespace wl::viz::test {

struct Story {
  std::filesystem::path dir; // the scratch folder: HOME, the current folder, the pictures folder
  int exit_code = -1;
  std::string output;

  nlohmann::json sidecar(const std::string& name) const {
    return read_json(dir / (name + ".json"));
  }
};

// Plays `script` in a fresh folder that is also HOME (settings and pictures stay inside it).
inline Story play(const std::string& script, const std::string& options = "") {
  Story story;
  story.dir = scratch_dir();
  // A desktop's pictures folder exists; WarpLens makes only its WarpLens/ inside.
  std::filesystem::create_directories(story.dir / "pictures");
  write_file(story.dir / "story.txt", script);
  const std::string prefix =
      "cd '" + story.dir.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY HOME='" +
      story.dir.string() + "' XDG_CONFIG_HOME='" + (story.dir / "config").string() +
      "' XDG_PICTURES_DIR='" + (story.dir / "pictures").string() + "' timeout 600 ";
  const wl::test::CommandResult r =
      wl::test::run_warplens("--headless --script story.txt " + options, prefix);
  story.exit_code = r.exit_code;
  story.output = r.out;
  return story;
}

// The labels of the controls a sidecar says were on screen, in one panel ("" any).
inline std::vector<std::string> labels_shown(const nlohmann::json& sidecar,
                                             const std::string& panel = "") {
  std::vector<std::string> labels;
  for (const nlohmann::json& c : sidecar["shown"]["controls"])
    if (panel.empty() || c["panel"] == panel)
      labels.push_back(c["label"]);
  return labels;
}

// The words a panel showed in the picture (its lines as ImGui's log writes them; "" when the
// panel was not in the picture).
inline std::string text_of(const nlohmann::json& sidecar, const std::string& panel) {
  const nlohmann::json& texts = sidecar["shown"]["text"];
  return texts.contains(panel) ? texts[panel].get<std::string>() : "";
}

// Words with every run of spaces and line ends as one space.
inline std::string flattened(const std::string& text) {
  std::string flat;
  for (const char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      flat += c;
    else if (!flat.empty() && flat.back() != ' ')
      flat += ' ';
  return flat;
}

// A panel's words flattened: a figure reads the same whether it stood beside the code or wrapped
// under it.
inline std::string flat_text(const nlohmann::json& sidecar, const std::string& panel) {
  return flattened(text_of(sidecar, panel));
}

// Whether the panel showed these words: as written, or across the line ends where its text
// wrapped (wrapped text is logged as the lines it was drawn in).
inline bool says(const nlohmann::json& sidecar, const std::string& panel,
                 const std::string& words) {
  return text_of(sidecar, panel).find(words) != std::string::npos ||
         flat_text(sidecar, panel).find(flattened(words)) != std::string::npos;
}

inline bool shown(const nlohmann::json& sidecar, const std::string& label,
                  const std::string& panel = "") {
  const std::vector<std::string> labels = labels_shown(sidecar, panel);
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

} // namespace wl::viz::test
