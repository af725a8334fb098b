#include "logs/columns.h"

namespace muster::logs {
namespace {

struct Unit {
  size_t bytes;
  size_t columns;
};

size_t escape_length(std::string_view text, size_t pos) {
  if (pos + 1 >= text.size()) return text.size() - pos;
  char kind = text[pos + 1];
  size_t i = pos + 2;
  if (kind == '[') {
    while (i < text.size() && !(text[i] >= 0x40 && text[i] <= 0x7E)) ++i;
    return (i < text.size() ? i + 1 : i) - pos;
  }
  if (kind == ']') {
    for (; i < text.size(); ++i) {
      if (text[i] == '\a') return i + 1 - pos;
      if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '\\') return i + 2 - pos;
    }
    return i - pos;
  }
  return 2;
}

Unit next_unit(std::string_view text, size_t pos) {
  auto c = static_cast<unsigned char>(text[pos]);
  if (c == 0x1b) return {escape_length(text, pos), 0};
  size_t bytes = 1;
  while (pos + bytes < text.size() && (static_cast<unsigned char>(text[pos + bytes]) & 0xC0) == 0x80) ++bytes;
  return {bytes, 1};
}

}  // namespace

size_t display_columns(std::string_view text) {
  size_t columns = 0;
  for (size_t pos = 0; pos < text.size();) {
    Unit unit = next_unit(text, pos);
    columns += unit.columns;
    pos += unit.bytes;
  }
  return columns;
}

size_t fit_columns(std::string_view text, size_t columns) {
  size_t used = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    Unit unit = next_unit(text, pos);
    if (used + unit.columns > columns) break;
    used += unit.columns;
    pos += unit.bytes;
  }
  return pos;
}

}  // namespace muster::logs
