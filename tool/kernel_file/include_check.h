#pragma once
// What a kernel file may include. Its headers travel with it to the worker, which may be another
// machine, and NVRTC opens any path an #include names: an absolute path or `..` would read a
// file outside the file's folder (on this machine, or on the worker's), and an include through a
// macro names a path no reader of the text can check. So every include directive, as the
// preprocessor reads it (lines joined where a backslash ends them, comments set aside, `%:` for
// `#`), names its header in quotes or angle brackets, relative and without `..`.

#include <set>
#include <string>
#include <vector>

namespace wl {

// The first include directive of `text` that is refused, as "line N: #include ... is ...; what is
// allowed", or "" when there is none. A quoted name among `given` (the headers that travel with
// the file, read from its folder) is the given text, never a path opened: `sub/../h.h` is one.
std::string refused_include(const std::string& text, const std::set<std::string>& given = {});

// The headers `text` includes in quotes, by name as written: the ones a reader looks for beside
// the file (those in angle brackets are the toolkit's).
std::vector<std::string> quoted_includes(const std::string& text);

} // namespace wl
