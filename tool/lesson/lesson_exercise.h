#pragma once
// An exercise: a lesson step on a kernel file the learner writes. The teacher ships a template
// beside the lesson (`exercise strided_copy.cu`) and its solution (`solution file
// strided_copy_solved.cu`); the learner works on a copy in their own folder, made from the
// template the first time the lesson is opened and never replaced, so their edits are theirs. The
// step's `until` goal is judged on the copy's figures: the models' (from its compiled code) where
// nothing runs, measured ones on a GPU, each save compiled and judged again.

#include "lesson/lesson.h"

#include <filesystem>

namespace wl {

// Where the learner's copies are kept: $WARPLENS_EXERCISES where set (an absolute path: throws
// UsageError for any other), else ~/warplens-exercises; empty where neither names a folder.
std::filesystem::path exercises_folder();

// The learner's copy of an exercise step's template: FOLDER/LESSON/TEMPLATE.cu, LESSON the lesson
// file's name without .lesson ("11-exercises").
std::filesystem::path exercise_copy(const Lesson& lesson, const LessonStep& step,
                                    const std::filesystem::path& folder = {});

// The lesson as the learner works it: each exercise step's kernel is their copy, made from the
// template where there is none (an existing copy, or a link to one, is used as it is). Throws
// UsageError naming the copy and why where one cannot be made or used (a folder in its place, a
// folder that takes no file, a template that cannot be read).
// `folder`, where given, holds the copies instead of exercises_folder() (a scripted session's
// scratch folder: a script never changes the user's own files).
Lesson learner_lesson(const Lesson& lesson, const std::filesystem::path& folder = {});

} // namespace wl
