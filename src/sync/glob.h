// gitignore-style glob matching (the `wildmatch` rules git uses for ignore files), for ExcludeRules.
// Pure string functions, no I/O.
//
// On '/'-separated paths: '*' matches any run of characters except '/', '?' one character except '/',
// '[...]' one character (not '/') of a class ('[!...]' or '[^...]' negate, 'a-z' ranges, '[:alpha:]' and the
// other POSIX names), '\' makes the next character literal. '**' forming a whole component matches across
// directories: a leading '**/' zero or more leading directories, a middle '/**/' zero or more directories,
// a trailing '/**' everything below (at least one more component). Elsewhere '**' is just two '*'.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace muster::sync {

// Whether `pattern` matches the whole of `path`.
bool glob_match(std::string_view pattern, std::string_view path);

// What is wrong with `pattern` (an unterminated '[' class, a trailing lone '\'), or nothing.
std::optional<std::string> glob_syntax_error(std::string_view pattern);

}  // namespace muster::sync
