// Small pure text helpers shared across layers: whitespace trimming, line splitting, joining, control characters
// made visible. No I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace muster {

// `text` without leading and trailing blanks (space, tab, CR, LF).
std::string_view trim(std::string_view text);

// The lines of `text`, without their '\n'; a final '\n' does not make an empty last line. Views into `text`.
std::vector<std::string_view> split_lines(std::string_view text);

// `items` with `separator` between each two: join({"a", "b"}, ", ") == "a, b"; join({}, ...) == "".
std::string join(const std::vector<std::string>& items, std::string_view separator);

// `text` with every control character (and DEL) written as \xNN: safe inside a one-line message or comment.
std::string one_line(std::string_view text);

}  // namespace muster
