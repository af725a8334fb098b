// How many terminal columns text takes, for fitting the status line to the screen. An approximation good
// enough for progress bars: every UTF-8 code point is one column (wide CJK glyphs are undercounted), ANSI
// escape sequences (CSI "\x1b[...X", OSC "\x1b]...BEL", two-byte "\x1bX") are zero.
#pragma once

#include <cstddef>
#include <string_view>

namespace muster::logs {

size_t display_columns(std::string_view text);

// Byte length of the longest prefix of `text` that fits in `columns`, never cutting a UTF-8 sequence or
// an escape sequence. Escape sequences right after the cut are kept (they take no room).
size_t fit_columns(std::string_view text, size_t columns);

}  // namespace muster::logs
