// Levenshtein distance, used for "did you mean" suggestions on mistyped subcommands and flags.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster {

size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if one is close enough to be a plausible typo
// (distance <= max(1, len/3)); nullopt otherwise.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace muster
