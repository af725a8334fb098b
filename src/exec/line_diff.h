// A unified diff of two texts, line by line (Myers' algorithm, the one diff(1) and difflib's unified output
// follow in spirit): what `muster exec --diff` prints for each group against the most common output. Pure.
#pragma once

#include <string>
#include <string_view>

namespace muster::exec {

// `--- from_label` / `+++ to_label`, then hunks (`@@ -a,b +c,d @@`) with `context` unchanged lines around each
// change. Empty when the texts are equal. Texts of more than `max_lines` lines each are compared as wholes:
// the hunk replaces every line (the diff stays bounded in time and memory).
std::string unified_diff(std::string_view from, std::string_view to, std::string_view from_label,
                         std::string_view to_label, size_t context = 3, size_t max_lines = 20'000);

}  // namespace muster::exec
