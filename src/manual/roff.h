// Text for groff's man macros: escapes for what the help strings contain (backslashes, hyphens, a leading
// dot, non-ASCII characters), so every page renders without warnings (`man --warnings`, lintian). Pure.
#pragma once

#include <string>
#include <string_view>

namespace muster::manual {

// `text` as roff running text: `\` -> `\e`, `-` -> `\-` (a hyphen you can copy into a shell), each non-ASCII
// character as `\[uXXXX]`, and `\&` in front of a line that would start with `.` or `'`.
std::string roff_escape(std::string_view text);

// `\fBtext\fR` (bold: commands, flags) and `\fItext\fR` (italic: placeholders), escaped.
std::string roff_bold(std::string_view text);
std::string roff_italic(std::string_view text);

}  // namespace muster::manual
