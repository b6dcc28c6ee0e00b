#pragma once
// `warplens tune FILE.cu --apply`: a tune's winner written into the person's own kernel file as its
// defaults (each tunable's winning value first in its `// @warplens tune` line, the winning block
// in its `// @warplens block` line), touching nothing else of the file. The person may have edited
// the file while the tune ran: it is replaced only if its text is still the one the tune read, and
// atomically, so an edit is never lost and the file is never half-written.

#include "shape.h" // BlockShape {int x, y, z}

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace wl {

struct TuneWinner {
  BlockShape block = {};
  std::vector<std::pair<std::string, std::int64_t>> tunables = {}; // name, winning value
};

// `text` (the kernel file named `file_name` in messages) with the winner as its defaults: each
// tunable's `// @warplens tune` line with the winning value first, the `// @warplens block` line
// with the winning block (one added after the last `// @warplens` line of the description where
// the file has none, in the same indentation/comment form). Lines keep their endings and
// everything else byte for byte (spacing of untouched lines, CRLF files, no final newline).
// Throws UsageError naming the file and line: a tunable with no tune line, a winning value not
// among its line's values, a tune line named twice.
std::string with_winner_as_default(const std::string& text, const std::string& file_name,
                                   const TuneWinner& winner);

// Writes that over `file`, only where the file's text is still `text_at_start`; else throws
// UsageError "FILE changed since the tune began: not applied (the winner: block 16x16, TILE=32)".
// The file is replaced atomically through base/file_output.h's write_file_safely (replace
// existing, write through a link so a linked file stays a link, keep on failure), its mode kept.
// Returns what changed, a line each: "line 5: tune TILE = 32, 16, 8 -> 16, 32, 8",
// "line 9: block 256 -> 128". Nothing changed: an empty list and the file untouched (not
// rewritten).
std::vector<std::string> apply_winner(const std::filesystem::path& file,
                                      const std::string& text_at_start, const TuneWinner& winner);

} // namespace wl
