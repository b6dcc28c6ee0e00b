#include "workflows/settings.h"

#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/arch.h"
#include "model/kernel_request.h"
#include "registry.h"
#include "workflows/save_folder.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wl::viz {

namespace {

using nlohmann::json;

constexpr const char* kSettingsFile = "settings.json";
constexpr std::size_t kMaxSettingsBytes = std::size_t{1} << 20; // ours are about 1 KiB
constexpr std::array kTileKeys = {"left", "top_left", "top_right", "bottom"};
// The keys settings_text writes; any other key in the file is kept as it is and named.
constexpr std::array kKnownKeys = {
    "kernel", "params", "block",  "arch",    "live",           "theme",       "ui_scale",
    "panels", "layout", "lesson", "lessons", "screenshot_dir", "kernel_file", "recent_files"};

// The keys of the objects inside settings.json that WarpLens reads, by where they are ("" the
// file itself, "layout.tiles"); any other key in them is kept and named. "params" holds the
// kernel's parameters: one the kernel does not have is refused (apply_params).
std::vector<std::string> known_keys(std::string_view where) {
  if (where.empty())
    return {kKnownKeys.begin(), kKnownKeys.end()};
  if (where == "layout")
    return {"left_width", "top_height", "top_split", "tiles"};
  std::vector<std::string> panels; // "panels" and "layout.tiles": a key per panel
  for (Panel panel : kAllPanels)
    panels.emplace_back(panel_name(panel));
  return panels;
}

bool holds_known_keys(std::string_view where) {
  return where == "panels" || where == "layout" || where == "layout.tiles";
}

// The file's text, or the system's reason it cannot be read (no permission, most often).
struct FileText {
  std::string text;
  int error = 0;
};

FileText read_text(const std::filesystem::path& file) {
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return {"", errno ? errno : EIO};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return {"", errno ? errno : EIO};
  return {text.str(), 0};
}

// The fields a settings file holds that WarpLens cannot use, each "KEY: why" for the message.
class Refusals {
public:
  void add(std::string key, std::string what) {
    m_keys.push_back(std::move(key));
    m_items.push_back(std::move(what));
  }
  bool empty() const { return m_items.empty(); }
  // "ui_scale 1000: allowed 0.5 to 4; also block, theme": the first in full, the others named,
  // in one short line.
  std::string summary() const {
    std::string text = clip(m_items.front(), 90);
    for (std::size_t i = 1; i < m_keys.size(); ++i)
      text += (i == 1 ? "; also " : ", ") + m_keys[i];
    return clip(text, 160);
  }

private:
  std::vector<std::string> m_keys, m_items;
};

std::string shown(const json& value) { return clip(value.dump(), 40); }

float fraction_or(const json& j, const char* key, float fallback, Refusals& refusals) {
  if (!j.contains(key))
    return fallback;
  const json& value = j[key];
  if (value.is_number() && value.get<double>() >= 0.15 && value.get<double>() <= 0.85)
    return static_cast<float>(value.get<double>());
  refusals.add(std::string("layout.") + key,
               std::string("layout.") + key + " " + shown(value) + ": allowed 0.15 to 0.85");
  return fallback;
}

std::optional<Tile> parse_tile(const json& value) {
  if (!value.is_string())
    return std::nullopt;
  for (std::size_t i = 0; i < kTileKeys.size(); ++i)
    if (value.get<std::string>() == kTileKeys[i])
      return static_cast<Tile>(i);
  return std::nullopt;
}

void apply_layout(App& app, const json& j, Refusals& refusals) {
  Layout layout = default_layout();
  layout.left_width = fraction_or(j, "left_width", layout.left_width, refusals);
  layout.top_height = fraction_or(j, "top_height", layout.top_height, refusals);
  layout.top_split = fraction_or(j, "top_split", layout.top_split, refusals);
  if (j.contains("tiles") && !j["tiles"].is_object())
    refusals.add("layout.tiles",
                 "layout.tiles " + shown(j["tiles"]) + ": allowed an object of panel keys");
  if (j.contains("tiles") && j["tiles"].is_object())
    for (Panel panel : kAllPanels)
      if (j["tiles"].contains(panel_name(panel))) {
        if (const std::optional<Tile> tile = parse_tile(j["tiles"][panel_name(panel)]))
          layout.tile[static_cast<int>(panel)] = *tile;
        else
          refusals.add(std::string("layout.tiles.") + panel_name(panel),
                       std::string("layout.tiles.") + panel_name(panel) + " " +
                           shown(j["tiles"][panel_name(panel)]) +
                           ": allowed left, top_left, top_right, bottom");
      }
  app.choices.layout = layout;
}

// A value the kernel takes for the parameter: a whole number in its range, one of its choices
// where it has them (tile: 16 or 32).
bool allowed_param_value(const KernelDesc& kernel, const ParamSpec& spec, const json& value) {
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX))
    return false;
  try {
    check_param_value(kernel, spec, value.get<std::int64_t>());
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::string allowed_param_values(const ParamSpec& spec) {
  if (!spec.choices.empty())
    return "allowed " + joined(spec.choices, ", ");
  return "allowed whole numbers " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
}

void apply_params(App& app, const json& params, Refusals& refusals) {
  const KernelDesc* kernel = app.kernel();
  const Params before = app.choices.params;
  for (auto& [name, value] : params.items()) {
    const auto spec = std::find_if(kernel->params.begin(), kernel->params.end(),
                                   [&name = name](const ParamSpec& p) { return p.name == name; });
    if (spec == kernel->params.end())
      refusals.add("params." + clip(name, 30),
                   "params." + clip(name, 30) + ": " + kernel->id + " has no such parameter");
    else if (!allowed_param_value(*kernel, *spec, value))
      refusals.add("params." + name,
                   "params." + name + " " + shown(value) + ": " + allowed_param_values(*spec));
    else
      app.choices.params[name] = value.get<std::int64_t>();
  }
  // Each allowed alone, the values may still not go together (n not a multiple of 4 for a kernel
  // that reads four floats at a time): the kernel's parameters are then the ones it had.
  try {
    check_kernel_params(*kernel, app.choices.params);
  } catch (const Error& e) {
    refusals.add("params", std::string("params: ") + e.what());
    app.choices.params = before;
  }
}

bool is_block(const json& block) {
  return block.is_array() && block.size() == 3 &&
         std::all_of(block.begin(), block.end(), [](const json& side) {
           return side.is_number_integer() && side.get<std::int64_t>() >= 1 &&
                  side.get<std::int64_t>() <= 1024;
         });
}

// What the kernel allows when it does not take `block` with these parameters, or why the arch does
// not; "" when both take it. Short: the status line has room for the first refusal only.
std::string block_refusal(const KernelDesc& kernel, const Params& params, const Arch& arch,
                          const BlockShape& block) {
  try {
    check_kernel_block(KernelRequest{&kernel, params, block});
  } catch (const Error&) {
    return kernel.id + " allows " + kernel.allowed_blocks;
  }
  try {
    check_block_fits(arch, block);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A block the kernel takes with its parameters (matmul/tiled: 16x16 or 32x32) and the arch allows;
// another is named, as a parameter the kernel refuses is, and the kernel's default block (the
// first it allows with these parameters) is used.
void apply_block(App& app, const json& sides, Refusals& refusals) {
  const BlockShape block{sides[0].get<int>(), sides[1].get<int>(), sides[2].get<int>()};
  const std::string why = block_refusal(*app.kernel(), app.choices.params, app.arch(), block);
  if (why.empty()) {
    app.choices.set_block(block);
    return;
  }
  refusals.add("block", "block " + shown(sides) + ": " + why);
  if (const std::vector<BlockShape> allowed = allowed_presets(*app.kernel(), app.choices.params);
      !allowed.empty())
    app.choices.set_block(allowed.front());
}

// The saved kernel, its parameters and block.
void apply_launch(App& app, const json& j, Refusals& refusals) {
  const auto refuse = [&](const char* key, const char* allowed) {
    refusals.add(key, std::string(key) + " " + shown(j[key]) + ": " + allowed);
  };
  // A person's file on screen when the session ended is opened again (as saved now), so its
  // kernel can be chosen.
  if (j.contains("kernel_file") && j["kernel_file"].is_string() &&
      !app.open_kernel_file(j["kernel_file"].get<std::string>()))
    refusals.add("kernel_file", "kernel_file: " + app.file.open_problem);
  else if (j.contains("kernel_file") && !j["kernel_file"].is_string())
    refuse("kernel_file", "allowed the path of a kernel file");
  if (j.contains("kernel") && !(j["kernel"].is_string() && app.select_kernel(j["kernel"])))
    refuse("kernel", "allowed a bundled kernel's id (warplens list names them) or one of "
                     "kernel_file's");
  if (j.contains("params") && j["params"].is_object())
    apply_params(app, j["params"], refusals);
  else if (j.contains("params"))
    refuse("params", "allowed an object of whole numbers");
  if (j.contains("block") && is_block(j["block"]))
    apply_block(app, j["block"], refusals);
  else if (j.contains("block"))
    refuse("block", "allowed three whole numbers from 1 to 1024");
}

void apply_panels(App& app, const json& panels, Refusals& refusals) {
  for (Panel panel : kAllPanels) {
    const std::string key = panel_name(panel);
    if (!panels.contains(key))
      continue;
    if (panels[key].is_boolean())
      app.open(panel) = panels[key].get<bool>();
    else
      refusals.add("panels." + key,
                   "panels." + key + " " + shown(panels[key]) + ": allowed true or false");
  }
}

bool is_step_index(const json& value) {
  return value.is_number_integer() && value.get<std::int64_t>() >= 0 &&
         value.get<std::int64_t>() < 1'000'000;
}

// A progress entry's key that cannot be used: its name, its value and what it allows, said by
// the reader with the lesson's key before it ("lessons.03-coalescing.done ...").
struct BadProgress {
  std::string key; // "" for the entry itself
  std::string says;

  std::string of(const std::string& id) const {
    return "lessons." + clip(id, 30) + (key.empty() ? "" : "." + key) + " " + says;
  }
};

[[noreturn]] void bad_progress(const std::string& key, const json& value, const char* allowed) {
  throw BadProgress{key, shown(value) + ": allowed " + allowed};
}

// A set of step indices (none where `value[key]` is absent).
std::set<int> step_set(const json& value, const char* key) {
  constexpr const char* allowed = "a list of step numbers, whole numbers from 0";
  if (value.contains(key) && !value[key].is_array())
    bad_progress(key, value[key], allowed);
  std::set<int> steps;
  for (const json& step : value.value(key, json::array())) {
    if (!is_step_index(step))
      bad_progress(key, value[key], allowed);
    steps.insert(step.get<int>());
  }
  return steps;
}

// {"3": "NVIDIA H200"}: the steps met on a GPU's measurement, by the GPU's name.
std::map<int, std::string> measured_steps(const json& value) {
  constexpr const char* allowed = "{\"N\": \"GPU\"}: step numbers and GPU names (1 to 100 "
                                  "characters of text)";
  std::map<int, std::string> steps;
  const json measured = value.value("right_measured", json::object());
  if (!measured.is_object())
    bad_progress("right_measured", measured, allowed);
  for (const auto& [key, gpu] : measured.items()) {
    const bool index =
        !key.empty() && key.size() <= 6 && key.find_first_not_of("0123456789") == std::string::npos;
    if (!index || !gpu.is_string() || gpu.get<std::string>().empty() ||
        gpu.get<std::string>().size() > 100 || has_control_characters(gpu.get<std::string>()))
      bad_progress("right_measured." + clip(key, 20), gpu, allowed);
    steps[std::stoi(key)] = gpu.get<std::string>();
  }
  return steps;
}

json progress_json(const LessonProgress& progress) {
  json measured = json::object();
  for (const auto& [step, gpu] : progress.right_measured)
    measured[std::to_string(step)] = gpu;
  return {{"step", progress.step},
          {"done", progress.done},
          {"first_try", progress.first_try},
          {"seconds", std::round(progress.seconds)},
          {"right_modelled", progress.right_modelled},
          {"right_measured", measured},
          {"missed", progress.missed}};
}

// One lesson's progress: {"step": 2, "done": [0, 1], "first_try": [1]}. Steps answered at the
// first try that are not done are dropped: only a right answer counts. Throws BadProgress.
LessonProgress lesson_progress(const json& value) {
  if (!value.is_object())
    bad_progress(
        "", value,
        "an object such as {\"step\": 0, \"done\": [0], \"first_try\": [0], \"seconds\": 60}");
  if (!value.contains("step") || !is_step_index(value["step"]))
    bad_progress("step", value.value("step", json()), "the step open, a whole number from 0");
  const std::set<int> done = step_set(value, "done"), first_try = step_set(value, "first_try");
  const json seconds = value.value("seconds", json(0));
  if (!seconds.is_number() || !std::isfinite(seconds.get<double>()) || seconds.get<double>() < 0 ||
      seconds.get<double>() > 1e9)
    bad_progress("seconds", seconds, "the seconds the lesson was open, 0 to 1e9");
  const std::set<int> modelled = step_set(value, "right_modelled");
  const std::map<int, std::string> measured = measured_steps(value);
  LessonProgress progress{value["step"].get<int>(), done, {}, seconds.get<double>(), {}, {},
                          step_set(value, "missed")};
  for (int step : first_try) // each of these three only of steps done: a right answer counts
    if (done.contains(step))
      progress.first_try.insert(step);
  for (int step : modelled)
    if (done.contains(step))
      progress.right_modelled.insert(step);
  for (const auto& [step, gpu] : measured)
    if (done.contains(step))
      progress.right_measured[step] = gpu;
  return progress;
}

// The learners' progress in each lesson, and the lesson open when the session ended: opened again
// at the first frame (or, where --lesson opened one, that one at its own progress).
void apply_lessons(App& app, const json& j, Refusals& refusals) {
  if (j.contains("lessons") && j["lessons"].is_object()) {
    for (const auto& [id, value] : j["lessons"].items())
      try {
        app.lessons.progress[id] = lesson_progress(value);
      } catch (const BadProgress& bad) {
        refusals.add("lessons." + clip(id, 30), bad.of(id));
      }
  } else if (j.contains("lessons")) {
    refusals.add("lessons", "lessons " + shown(j["lessons"]) + ": allowed an object of lessons");
  }
  if (app.lessons.lesson)
    app.lessons.pending = app.lessons.id;
  else if (j.contains("lesson") && j["lesson"].is_string() && !app.choices.launch_from_command_line)
    app.lessons.pending = j["lesson"].get<std::string>();
  else if (j.contains("lesson") && !j["lesson"].is_string())
    refusals.add("lesson", "lesson " + shown(j["lesson"]) + ": allowed a lesson's name or path");
}

// Each field is applied only if it makes sense now (a kernel may be gone); what cannot be used
// is named in `refusals`. Keys WarpLens does not know are kept apart (keep_unknown_keys).
void apply(App& app, const json& j, Refusals& refusals) {
  const auto refuse = [&](const char* key, const char* allowed) {
    refusals.add(key, std::string(key) + " " + shown(j[key]) + ": " + allowed);
  };
  if (!app.choices.launch_from_command_line)
    apply_launch(app, j, refusals);
  if (!app.choices.arch_from_command_line && j.contains("arch") &&
      !(j["arch"].is_string() && app.choices.select_arch(j["arch"])))
    refuse("arch", "allowed a preset id (warplens arch --list names them)");
  if (j.contains("live") && j["live"].is_boolean())
    app.choices.live = j["live"].get<bool>();
  else if (j.contains("live"))
    refuse("live", "allowed true or false");
  if (j.contains("theme") && (j["theme"] == "light" || j["theme"] == "dark"))
    app.choices.theme = j["theme"] == "light" ? Theme::light : Theme::dark;
  else if (j.contains("theme"))
    refuse("theme", "allowed \"dark\" or \"light\"");
  if (j.contains("ui_scale") && j["ui_scale"].is_number() && j["ui_scale"].get<double>() >= 0.5 &&
      j["ui_scale"].get<double>() <= 4) {
    app.choices.ui_scale = j["ui_scale"].get<float>();
    app.choices.ui_scale_remembered = true;
  } else if (j.contains("ui_scale")) {
    refuse("ui_scale", "allowed 0.5 to 4");
  }
  if (j.contains("panels") && j["panels"].is_object())
    apply_panels(app, j["panels"], refusals);
  else if (j.contains("panels"))
    refuse("panels", "allowed an object of panel keys, each true or false");
  if (j.contains("layout") && j["layout"].is_object())
    apply_layout(app, j["layout"], refusals);
  else if (j.contains("layout"))
    refuse("layout", "allowed an object (left_width, top_height, top_split, tiles)");
  apply_lessons(app, j, refusals);
  if (j.contains("recent_files") && j["recent_files"].is_array()) {
    for (const json& path : j["recent_files"])
      if (path.is_string() && app.file.recent.size() < 8 &&
          std::find(app.file.recent.begin(), app.file.recent.end(), path) == app.file.recent.end())
        app.file.recent.push_back(path.get<std::string>());
  } else if (j.contains("recent_files")) {
    refuse("recent_files", "allowed a list of kernel files' paths");
  }
  if (j.contains("screenshot_dir") && j["screenshot_dir"].is_string())
    app.choices.screenshot_dir = j["screenshot_dir"].get<std::string>(); // "": the pictures folder
  else if (j.contains("screenshot_dir"))
    refuse("screenshot_dir", "allowed a folder's path, or \"\" for the pictures folder");
}

// "/panels/a~1b" for the key "a/b" in "panels": where settings_text puts a kept key back.
std::string pointer_step(const std::string& key) {
  std::string step = "/";
  for (char c : key)
    step += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return step;
}

// A key WarpLens does not know, and the object it is in ("" the file, "panels").
struct UnknownKey {
  std::string where, key;
  std::string place() const { return where.empty() ? key : where + "." + key; }
};

// The keys of `object` (at `where`) and of the objects in it that WarpLens reads, which WarpLens
// does not know: kept in app.choices.unknown_settings (by JSON pointer) and added to `unknown`.
void keep_unknown_keys_in(App& app, const json& object, const std::string& where,
                          const std::string& pointer, std::vector<UnknownKey>& unknown) {
  const std::vector<std::string> known = known_keys(where);
  for (const auto& [key, value] : object.items()) {
    const std::string place = where.empty() ? key : where + "." + key;
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      app.choices.unknown_settings[pointer + pointer_step(key)] = value.dump();
      unknown.push_back({where, key});
    } else if (value.is_object() && holds_known_keys(place)) {
      keep_unknown_keys_in(app, value, place, pointer + pointer_step(key), unknown);
    }
  }
}

// Keys WarpLens does not know (a newer version's, or a typo such as "kernal" or "panels.timigns")
// are kept to be written back as they are, so saving loses none of them; the message names them,
// and the keys WarpLens knows where the first of them is, so a typo is seen.
std::string keep_unknown_keys(App& app, const json& j) {
  app.choices.unknown_settings.clear();
  std::vector<UnknownKey> unknown;
  keep_unknown_keys_in(app, j, "", "", unknown);
  if (unknown.empty())
    return "";
  std::string named;
  for (const UnknownKey& key : unknown)
    named += (named.empty() ? "'" : ", '") + clip(key.place(), 30) + "'";
  const std::string& first_in = unknown.front().where;
  std::string known;
  for (const std::string& key : known_keys(first_in))
    known += (known.empty() ? "" : ", ") + key;
  return std::string(kSettingsFile) + ": unknown key" + (unknown.size() == 1 ? " " : "s ") +
         clip(named, 100) + " (kept; known" + (first_in.empty() ? "" : " in " + first_in) + ": " +
         known + ")";
}

// A damaged settings file goes aside under a new name, so saving the defaults loses nothing; when
// it cannot be moved, nothing is saved this session. The message leads with what happened, before
// its colon, which is what the status line has room for; the file and the reason follow.
std::string moved_aside(App& app, const std::filesystem::path& file, const std::string& why,
                        const char* then = "settings not loaded, defaults used") {
  const std::filesystem::path aside = file.string() + ".bad-" + local_time("%Y%m%d-%H%M%S");
  std::error_code error;
  std::filesystem::rename(file, aside, error);
  if (!error)
    return std::string(then) + ": " + file.string() + " " + why + "; kept as " +
           aside.filename().string();
  app.choices.settings_writable = false;
  return std::string(then) + ", nothing saved this session: " + file.string() + " " + why +
         "; it could not be moved aside (" + error.message() + ")";
}

json layout_json(const Layout& layout) {
  json tiles = json::object();
  for (Panel panel : kAllPanels)
    tiles[panel_name(panel)] = kTileKeys[static_cast<int>(layout.tile[static_cast<int>(panel)])];
  return {{"left_width", layout.left_width},
          {"top_height", layout.top_height},
          {"top_split", layout.top_split},
          {"tiles", tiles}};
}

// A settings file that cannot be read: the system's reason before the file, as the status line
// has room for the start of a message and the path is long.
std::string not_read(const std::filesystem::path& file, const std::string& reason) {
  return "settings not loaded (" + reason + "), defaults used, nothing saved: " + file.string();
}

} // namespace

std::filesystem::path default_config_dir() {
  // A relative XDG_CONFIG_HOME is to be ignored (the XDG spec): it would name another folder
  // from each folder a command runs in.
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && xdg[0] == '/')
    return std::filesystem::path(xdg) / "warplens";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".config" / "warplens";
  return {};
}

namespace {

// settings.json in `dir` as the lessons' progress is read from it: an object ({} where there is
// no file). One that is there and cannot be used (a link to nothing, a folder without permission,
// not JSON, not an object) throws UsageError naming it: never read as none.
json saved_settings(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kSettingsFile;
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::symlink_status(file, error);
  if (error && error != std::errc::no_such_file_or_directory)
    throw UsageError(file.string() + ": " + error.message());
  if (!std::filesystem::exists(status))
    return json::object();
  if (std::filesystem::is_symlink(status) && !std::filesystem::exists(file, error))
    throw UsageError(file.string() + " is a link to " +
                     std::filesystem::read_symlink(file, error).string() +
                     ", which is not there; link it to the GUI's settings.json or remove it");
  if (!std::filesystem::is_regular_file(file, error))
    throw UsageError(file.string() + " is not a regular file; give --settings a folder whose "
                                     "settings.json the GUI wrote");
  const FileText read = read_text(file);
  if (read.error)
    throw UsageError(file.string() + ": cannot read it: " + std::strerror(read.error));
  json j = parse_json_text(read.text, file.string(), kMaxSettingsBytes);
  if (!j.is_object())
    throw UsageError(file.string() + ": " + shown(j) + ": allowed an object of settings");
  return j;
}

// Each lesson's progress in settings `j` (of `file`), every one checked.
std::map<std::string, LessonProgress> progress_in(const json& j,
                                                  const std::filesystem::path& file) {
  std::map<std::string, LessonProgress> progress;
  if (!j.contains("lessons"))
    return progress;
  if (!j["lessons"].is_object())
    throw UsageError(file.string() + ": lessons " + shown(j["lessons"]) +
                     ": allowed an object of lessons");
  for (const auto& [id, value] : j["lessons"].items())
    try {
      progress[id] = lesson_progress(value);
    } catch (const BadProgress& bad) {
      throw UsageError(file.string() + ": " + bad.of(id));
    }
  return progress;
}

} // namespace

std::map<std::string, LessonProgress> read_lesson_progress(const std::filesystem::path& dir) {
  if (dir.empty())
    return {};
  return progress_in(saved_settings(dir), dir / kSettingsFile);
}

void merge_saved_progress(App& app, const std::filesystem::path& dir) {
  std::map<std::string, LessonProgress> saved;
  try {
    saved = read_lesson_progress(dir);
  } catch (const Error&) { // the GUI's own load said what is wrong with it
    return;
  }
  for (const auto& [id, there] : saved) {
    LessonProgress& here = app.lessons.progress[id];
    for (int step : there.done)
      if (here.done.insert(step).second && there.first_try.contains(step))
        here.first_try.insert(step);
    here.right_modelled.insert(there.right_modelled.begin(), there.right_modelled.end());
    here.right_measured.insert(there.right_measured.begin(), there.right_measured.end());
    here.missed.insert(there.missed.begin(), there.missed.end());
    here.seconds = std::max(here.seconds, there.seconds);
  }
}

std::string record_lesson_progress(const std::filesystem::path& dir, const std::string& id,
                                   const std::map<int, JudgedTry>& tries) {
  try {
    const std::filesystem::path file = dir / kSettingsFile;
    json j = saved_settings(dir); // the rest of the file is written back as it is
    LessonProgress progress = progress_in(j, file)[id]; // refuses progress it cannot use
    for (const auto& [step, judged] : tries)
      progress.tried(step, judged.right, judged.measured_on);
    j["lessons"][id] = progress_json(progress);
    if (const std::string problem = make_folders(dir); !problem.empty())
      return "progress not saved: " + problem;
    const std::string problem = write_file_safely(
        file, j.dump(2) + "\n",
        {.replace_existing = true, .write_through_links = true, .keep_on_failure = true});
    return problem.empty() ? "" : problem + "; progress not saved";
  } catch (const Error& e) {
    return std::string(e.what()) + "; progress not saved";
  }
}

std::string load_settings(App& app, const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kSettingsFile;
  std::error_code error;
  if (dir.empty())
    return "";
  const bool there = std::filesystem::exists(file, error);
  // Asking whether it exists failed for another reason than its absence: a link loop (ELOOP).
  if (error && error != std::errc::no_such_file_or_directory) {
    app.choices.settings_writable = false; // never replace what the user put there
    return not_read(file, error.message());
  }
  if (!there) {
    // Said now, not at the first save: the session goes on, and nothing is made in a missing HOME.
    if (const std::string problem = missing_home(dir); !problem.empty()) {
      app.choices.settings_writable = false;
      return "settings not saved this session: " + problem;
    }
    return "";
  }
  if (!std::filesystem::is_regular_file(file, error)) {
    app.choices.settings_writable = false; // never replace what the user put there
    return "settings not loaded, defaults used, nothing saved: " + file.string() +
           " is not a regular file";
  }
  const FileText read = read_text(file);
  if (read.error) { // the file may be whole: it is left as it is, and nothing replaces it
    app.choices.settings_writable = false;
    return not_read(file, std::strerror(read.error));
  }
  json j;
  try {
    j = parse_json_text(read.text, "settings", kMaxSettingsBytes);
  } catch (const JsonNumberTooLarge& e) {
    // The parser stops at the number, so nothing after it was read: the whole file goes aside.
    return moved_aside(app, file,
                       "holds the number " + e.number + " at line " + std::to_string(e.line) +
                           ", column " + std::to_string(e.column) + ", too large for any setting");
  } catch (const Error& e) {
    return moved_aside(app, file, "cannot be read (" + clip(e.what(), 100) + ")");
  }
  if (!j.is_object())
    return moved_aside(app, file, "is not a JSON object");
  Refusals refusals;
  apply(app, j, refusals);
  const std::string unknown = keep_unknown_keys(app, j);
  if (!refusals.empty()) // kept, so saving the rest of the settings loses none of the user's
    return moved_aside(app, file, "has values WarpLens cannot use: " + refusals.summary(),
                       "settings partly applied") +
           (unknown.empty() ? "" : "; " + unknown);
  return unknown;
}

std::string settings_text(const App& app) {
  json panels = json::object();
  for (Panel panel : kAllPanels)
    panels[panel_name(panel)] = app.choices.panel_open[static_cast<int>(panel)];
  json j = {{"kernel", app.choices.kernel_id},
            {"params", app.choices.params},
            {"block", app.choices.block_sides},
            {"arch", app.arch().id},
            {"live", app.choices.live},
            {"theme", app.choices.theme == Theme::light ? "light" : "dark"},
            {"ui_scale", app.choices.ui_scale},
            {"panels", panels},
            {"layout", layout_json(app.choices.layout)},
            {"screenshot_dir", app.choices.screenshot_dir.string()},
            {"recent_files", app.file.recent}};
  if (app.kernel() && app.kernel()->kind == KernelKind::run_time && app.file.open())
    j["kernel_file"] = app.file.path.string();
  json lessons = json::object();
  for (const auto& [id, progress] : app.lessons.progress)
    lessons[id] = progress_json(progress);
  if (!lessons.empty())
    j["lessons"] = lessons;
  if (app.lessons.lesson)
    j["lesson"] = app.lessons.id;
  for (const auto& [place, value] : app.choices.unknown_settings)
    j[json::json_pointer(place)] = json::parse(value); // written by dump() when the file was read
  return json_text(j, 2) + "\n";
}

SystemCheck check_settings(const std::filesystem::path& dir) {
  if (dir.empty())
    return {"settings", "no folder (neither XDG_CONFIG_HOME nor HOME is set, or both are empty)",
            "set HOME (or XDG_CONFIG_HOME) so the GUI can keep its settings"};
  const std::filesystem::path file = dir / kSettingsFile;
  std::error_code error;
  const bool there = std::filesystem::exists(file, error);
  if (error && error != std::errc::no_such_file_or_directory) // a link loop (ELOOP)
    return {"settings", file.string() + " cannot be read (" + error.message() + ")",
            "the GUI leaves it as it is and saves nothing: mend the link"};
  if (std::filesystem::is_symlink(file, error) && !there)
    return {"settings",
            file.string() + " is a link to " + std::filesystem::read_symlink(file, error).string() +
                ", which does not exist",
            "the GUI cannot save through it: make what it points to, or remove the link"};
  if (!std::filesystem::exists(file, error)) {
    const std::string home = missing_home(dir);
    return {"settings", "none yet at " + file.string(),
            home.empty() ? "" : "the GUI cannot save them: " + home};
  }
  if (!std::filesystem::is_regular_file(file, error))
    return {"settings", file.string() + " is not a regular file",
            "the GUI leaves it as it is and saves nothing: move it away"};
  // Read from a copy: the GUI moves a file it cannot use aside, which a check must not do.
  const std::filesystem::path copy_dir =
      std::filesystem::temp_directory_path(error) /
      ("warplens-doctor-" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(copy_dir, error);
  std::filesystem::copy_file(file, copy_dir / kSettingsFile, error);
  if (error) {
    const std::string why = error.message();
    std::filesystem::remove_all(copy_dir, error); // made above, left empty
    return {"settings", file.string(), "cannot be read: " + why};
  }
  std::string problem;
  try {
    App app = make_app();
    problem = load_settings(app, copy_dir);
  } catch (const Error& e) { // no assets to make the GUI's state from: their own line says why
    problem = std::string("cannot check it: ") + e.what();
  }
  std::filesystem::remove_all(copy_dir, error);
  for (std::size_t at; (at = problem.find(copy_dir.string())) != std::string::npos;)
    problem.replace(at, copy_dir.string().size(), dir.string());
  if (problem.empty())
    return {"settings", file.string() + " (read, every value usable)", ""};
  // Said as what the GUI would do, which this check did not: "kept as settings.json.bad-TIME".
  if (const std::size_t kept = problem.find("; kept as settings.json.bad-");
      kept != std::string::npos) {
    const std::size_t end = problem.find_first_not_of("0123456789-", kept + 28);
    problem.erase(kept, (end == std::string::npos ? problem.size() : end) - kept);
  }
  return {"settings", file.string(),
          "the GUI would not use it as it is (" + problem +
              "): at its next start it moves it aside as settings.json.bad-<time> and starts "
              "from the defaults; mend or delete the file to choose otherwise"};
}

std::string save_settings(const App& app, const std::filesystem::path& dir) {
  if (dir.empty() || !app.choices.settings_writable)
    return "";
  if (const std::string problem = make_folders(dir); !problem.empty())
    return "settings not saved: " + problem;
  // A settings.json that links elsewhere (a dotfiles folder) is written where it points.
  return write_file_safely(dir / kSettingsFile, settings_text(app),
                           {.replace_existing = true,
                            .write_through_links = true,
                            .keep_on_failure = false}); // the next change tries again
}

} // namespace wl::viz
