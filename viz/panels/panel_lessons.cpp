// Lessons: the course in the GUI. With no lesson open, the bundled lessons with each one's
// progress, and a field to open a teacher's own file. With one open, its step: what it says, the
// panel to look at (outlined), the question asked before the answer is shown (a number, a choice,
// or a change to make until a condition holds), Check, and the verdict with the figure, where it
// came from and why; a hint after a wrong try, and the answer on request. The workflow is
// viz/workflows/lesson_workflow.cpp.

#include "base/error.h"
#include "base/text_format.h"
#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "drawing/widgets.h"
#include "panels/panels.h"

#include <algorithm>

#include <imgui.h>
#include <imgui_internal.h> // the window's visible rectangle

namespace wl::viz {

namespace {

// A teacher wraps `say` and `about` lines by hand: consecutive lines are one paragraph here,
// wrapped to the panel's width.
std::string paragraph(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += (text.empty() ? "" : " ") + line;
  return text;
}

// Questions of `lesson` the learner answered right (or right at the first try), by the progress
// kept for `id`.
int answered_right(const App& app, const std::string& id, const Lesson& lesson,
                   bool at_first_try = false) {
  const auto found = app.lessons.progress.find(id);
  if (found == app.lessons.progress.end())
    return 0;
  return lesson.answered_right(at_first_try ? found->second.first_try : found->second.done);
}

// "3/6 done  " (questions answered right of all) before a lesson's title, in front, where a
// narrow panel does not cut it.
std::string progress_text(const App& app, const std::string& id, const Lesson* lesson) {
  const int done = lesson ? answered_right(app, id, *lesson) : 0;
  return done == 0 ? "" : format("%d/%d done  ", done, lesson->questions());
}

// The bundled lessons in course order, read once.
const std::vector<LessonWorkflow::Listed>& course(App& app) {
  if (app.lessons.catalog.empty())
    for (const std::filesystem::path& file : bundled_lessons()) {
      LessonWorkflow::Listed listed{file, file.stem().string(), nullptr};
      try {
        const Lesson lesson = load_lesson(file);
        listed.title = lesson.title;
        listed.lesson = std::make_shared<const Lesson>(lesson);
      } catch (const Error&) { // opened, it says what is wrong with it
      }
      app.lessons.catalog.push_back(std::move(listed));
    }
  return app.lessons.catalog;
}

// The bundled lesson after the one open; null after the last, or for a teacher's file.
const LessonWorkflow::Listed* next_lesson(App& app) {
  const std::vector<LessonWorkflow::Listed>& lessons = course(app);
  for (std::size_t i = 0; i + 1 < lessons.size(); ++i)
    if (lessons[i].file.stem().string() == app.lessons.id)
      return &lessons[i + 1];
  return nullptr;
}

// The teacher's files opened before (their progress is kept by path), to open again.
void draw_own_files(App& app) {
  std::vector<std::string> files;
  for (const auto& [id, progress] : app.lessons.progress)
    if (id.find('/') != std::string::npos && std::filesystem::is_regular_file(id))
      files.push_back(id);
  if (files.empty())
    return;
  ImGui::TextDisabled("Lesson files opened before");
  for (const std::string& file : files)
    if (ui::selectable(file.c_str(), false))
      app.open_lesson(file);
}

void draw_catalog(App& app) {
  note_text("Each lesson sets up a launch, asks what you expect before it shows the figure, then "
            "says whether you were right and why. Pick one:");
  for (const LessonWorkflow::Listed& listed : course(app)) {
    const std::string id = listed.file.stem().string();
    const std::string label = progress_text(app, id, listed.lesson.get()) + listed.title;
    if (ui::selectable(label.c_str(), false, id))
      app.open_lesson(listed.file.string());
  }
  draw_own_files(app);
  ImGui::Separator();
  ImGui::TextUnformatted("Or open a lesson file of your own (.lesson):");
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Open lesson").x * 1.4f);
  const bool entered =
      ui::input_text("lesson file", app.lessons.path_typed.data(), app.lessons.path_typed.size(),
                     ImGuiInputTextFlags_EnterReturnsTrue);
  if ((ui::button("Open lesson") || entered) && app.lessons.path_typed[0] != '\0')
    app.open_lesson(app.lessons.path_typed.data());
}

void draw_navigation(App& app) {
  const int steps = static_cast<int>(app.lessons.lesson->steps.size());
  ImGui::BeginDisabled(app.lessons.step == 0);
  if (ui::button("< Previous step"))
    app.go_to_step(app.lessons.step - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  const LessonWorkflow::Listed* next = next_lesson(app);
  if (app.lessons.step + 1 >= steps && next) { // the course goes on
    if (ui::button("Next lesson >"))
      app.open_lesson(next->file.string());
  } else {
    ImGui::BeginDisabled(app.lessons.step + 1 >= steps);
    if (ui::button("Next step >"))
      app.go_to_step(app.lessons.step + 1);
    ImGui::EndDisabled();
  }
  same_line_if_room(ImGui::CalcTextSize("Restart step").x + 2 * ImGui::GetStyle().FramePadding.x);
  if (ui::button("Restart step"))
    app.go_to_step(app.lessons.step, true);
  same_line_if_room(ImGui::CalcTextSize("All lessons").x + 2 * ImGui::GetStyle().FramePadding.x);
  if (ui::button("All lessons"))
    app.close_lesson();
}

// The learner's answer: a number field, the choices, or the launch (or playground) to change.
void draw_answer_controls(App& app, const LessonStep& step) {
  LessonWorkflow& l = app.lessons;
  if (step.kind == QuestionKind::number) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ui::input_text("your answer", l.typed.data(), l.typed.size(),
                       ImGuiInputTextFlags_EnterReturnsTrue))
      app.check_lesson_answer();
  } else if (step.kind == QuestionKind::choice) {
    for (const std::string& choice : step.choices) {
      const std::string shown = choice_in_words(choice);
      same_line_if_room(ImGui::CalcTextSize(shown.c_str()).x + ImGui::GetFontSize() * 2);
      if (ui::selectable((shown + "##" + choice).c_str(), l.chosen == choice, shown))
        l.chosen = choice;
    }
  } else if (step.playground) {
    note_text("Change the index in the Index playground, then press Check.");
  } else if (step.exercise) {
    note_text("Change your copy and save it: each save is judged (Check judges it again).");
  } else {
    note_text("Change the launch here (or in the Launch panel), then press Check:");
    draw_launch_editors(app);
  }
  if (ui::button("Check"))
    app.check_lesson_answer();
  if (!l.revealed) { // giving up is allowed; a slide series shows each answer this way
    ImGui::SameLine();
    if (ui::button(step.kind == QuestionKind::until ? "Show a solution" : "Show the answer"))
      app.reveal_lesson_answer();
  }
}

// A verdict just made is scrolled up into sight where the panel is too short for it (1280x720):
// once for each, so the person scrolls where they like afterwards.
void scroll_new_verdict_into_sight(LessonWorkflow& l) {
  if (l.verdict_scrolled == l.verdicts_made)
    return;
  l.verdict_scrolled = l.verdicts_made;
  const float below = ImGui::GetItemRectMax().y - ImGui::GetCurrentWindow()->InnerClipRect.Max.y;
  if (below > 0)
    ImGui::SetScrollY(ImGui::GetScrollY() + below + ImGui::GetStyle().ItemSpacing.y);
}

void draw_verdict(LessonWorkflow& l) {
  if (!l.problem.empty())
    error_text(l.problem);
  if (!l.verdict)
    return;
  if (l.verdict->right) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(ideal_colour()));
    wrapped_text(l.verdict->says);
    ImGui::PopStyleColor();
  } else if (l.revealed) {
    wrapped_text(l.verdict->says);
  } else {
    error_text(l.verdict->says);
  }
  scroll_new_verdict_into_sight(l);
}

// On the last step, once answered: how the lesson went, and where the course goes on.
void draw_ending(App& app) {
  const LessonWorkflow& l = app.lessons;
  if (l.step + 1 < static_cast<int>(l.lesson->steps.size()) || !l.revealed)
    return;
  const int questions = l.lesson->questions();
  const int right = answered_right(app, l.id, *l.lesson);
  const int first_try = answered_right(app, l.id, *l.lesson, true);
  ImGui::Separator();
  const char* next = next_lesson(app) ? " Next lesson > goes on with the course." : "";
  // Slides show each answer without answering it: a count of none answered right, in any words,
  // reads as the class's failure. With none answered, the ending counts the questions alone
  // (claiming nothing of answers a skipped step never showed).
  if (right == 0)
    wrapped_textf("End of the lesson (%d question%s).%s", questions, questions == 1 ? "" : "s",
                  next);
  else
    wrapped_textf("End of the lesson: %d of %d questions answered right, %d of them at the first "
                  "try.%s",
                  right, questions, first_try, next);
}

// The code the question is about, where the Source panel is out of sight (its tile shows the
// panel the step outlines, or the window is too small for it): a question is read beside its code.
void draw_code_beside(App& app, const LessonStep& step) {
  if (step.playground || app.rect(Panel::source).visible)
    return;
  ImGui::Separator();
  note_text("The code (the Source panel shows it with its figures):");
  draw_code_to_read(app);
}

// The lesson's preset by its id ("sm_90" names h100), as the preset chosen is named.
std::string own_preset(const App& app, const Lesson& lesson) {
  try {
    return find_arch(app.choices.arches, lesson.arch).id;
  } catch (const Error&) { // a lesson opened was checked: its preset is one
    return lesson.arch;
  }
}

void draw_step(App& app) {
  LessonWorkflow& l = app.lessons;
  wrapped_text(l.lesson->title);
  const LessonStep& shown = *l.current();
  // An exercise's copy that met its goal once may miss it now: its verdict says which.
  const bool missing_now = l.verdict && !l.verdict->right;
  const char* done = !l.progress[l.id].done.count(l.step) ? ""
                     : !shown.exercise                    ? ", answered right"
                     : missing_now                        ? ", its goal met before"
                                                          : ", its goal met";
  note_text(format("Step %d of %zu%s", l.step + 1, l.lesson->steps.size(), done));
  if (const std::string chosen = app.lesson_preset();
      shown.arch.empty() && !chosen.empty() && chosen != own_preset(app, *l.lesson))
    note_text("On " + chosen + ", " +
              (app.recordings.chosen() ? "the preset of the recording you opened"
                                       : "the preset you chose") +
              " (the lesson's own is " + own_preset(app, *l.lesson) + ").");
  draw_navigation(app);
  if (!l.lesson) // All lessons closed it
    return;
  const Lesson& lesson = *l.lesson; // the step as the navigation left it
  const LessonStep& step = *l.current();
  ImGui::Separator();
  if (l.step == 0 && !lesson.about.empty())
    note_text(paragraph(lesson.about));
  wrapped_text(step.title);
  if (!step.say.empty())
    wrapped_text(paragraph(step.say));
  if (const std::optional<Panel> panel = parse_panel(step.show))
    note_text(std::string("Look at the ") + panel_title(*panel) + " panel (outlined" +
              (app.lesson_veils(*panel) ? "; covered until you answer" : "") + ")." +
              (step.playground ? " The other panels still show the last launch." : ""));
  if (step.kind == QuestionKind::none) {
    draw_verdict(l);
    return;
  }
  ImGui::Separator();
  wrapped_text(step.ask);
  if (step.exercise)
    note_text("Your copy: " + step.kernel + ". Open it in your editor.");
  if (app.lesson_veils(Panel::counters))
    note_text("The panels that would show the answer are covered until you answer.");
  draw_answer_controls(app, step);
  draw_verdict(l);
  draw_ending(app);
  draw_code_beside(app, step);
}

} // namespace

void draw_lessons(App& app) {
  if (!app.lessons.lesson) {
    draw_catalog(app);
    if (!app.lessons.problem.empty())
      error_text(app.lessons.problem);
    return;
  }
  draw_step(app);
}

} // namespace wl::viz
