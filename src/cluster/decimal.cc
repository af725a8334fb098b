#include "cluster/decimal.h"

#include <fmt/format.h>

namespace muster::cluster {

size_t count_leading_digits(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  return n;
}

std::optional<int64_t> parse_decimal(std::string_view text, int64_t max) {
  if (text.empty() || count_leading_digits(text) != text.size()) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, c - '0', &value) ||
        value > max) {
      return std::nullopt;
    }
  }
  return value;
}

std::string format_padded(int64_t value, size_t width) {
  return fmt::format("{:0{}}", value, width);
}

}  // namespace muster::cluster
