#include "manual/roff.h"

#include <fmt/core.h>

namespace muster::manual {
namespace {

// The code point of the UTF-8 sequence at `text[i]`, advancing `i` past it; U+FFFD for a malformed one.
uint32_t next_code_point(std::string_view text, size_t& i) {
  auto byte = static_cast<unsigned char>(text[i++]);
  int extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : -1;
  if (extra < 0) return 0xFFFD;
  uint32_t point = byte & (0x3F >> extra);
  for (int k = 0; k < extra; ++k) {
    if (i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return 0xFFFD;
    point = (point << 6) | (static_cast<unsigned char>(text[i++]) & 0x3F);
  }
  return point;
}

}  // namespace

std::string roff_escape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (static_cast<unsigned char>(c) >= 0x80) {
      out += fmt::format("\\[u{:04X}]", next_code_point(text, i));
      continue;
    }
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    ++i;
  }
  return out;
}

std::string roff_bold(std::string_view text) { return "\\fB" + roff_escape(text) + "\\fR"; }

std::string roff_italic(std::string_view text) { return "\\fI" + roff_escape(text) + "\\fR"; }

}  // namespace muster::manual
