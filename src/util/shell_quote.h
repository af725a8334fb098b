// Quoting for POSIX sh. Used to build the one remote command string that ssh hands to the node's login
// shell; user arguments never travel this way (they go inside protocol frames), but paths and ids do.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace muster {

// `word` as a single sh word: unchanged when it holds only safe characters, otherwise single-quoted with
// embedded single quotes written as '\''. The empty string becomes ''.
std::string shell_quote(std::string_view word);

// The words quoted and joined with single spaces.
std::string shell_join(const std::vector<std::string>& words);

}  // namespace muster
