// Reading and writing the unsigned decimal numbers that appear in hostfiles, hostlists and Slurm variables.
// Digits only: no sign, no spaces, no hex; a value above `max` is refused rather than wrapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace muster::cluster {

// How many characters at the start of `text` are ASCII digits.
size_t count_leading_digits(std::string_view text);

// The value of `text` if it is all digits (at least one) and at most `max`.
std::optional<int64_t> parse_decimal(std::string_view text, int64_t max);

// `value` zero-padded to at least `width` digits: format_padded(7, 3) == "007".
std::string format_padded(int64_t value, size_t width);

}  // namespace muster::cluster
