// How the parsers in this folder point at the text they refused. Files get the compiler convention
// `hosts.txt:3:12: message`; one-line expressions (a hostlist, a filter flag, an environment variable) get
// `hostlist "node[5-1]", column 6: message`. Lines and columns are 1-based; a column counts bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::cluster {

Error error_in_file(std::string_view file, int line, int column, std::string_view message);

// `offset` is 0-based into `text`; the message shows it as a 1-based column.
Error error_in_expression(std::string_view what, std::string_view text, size_t offset,
                          std::string_view message);

// `'text'` for a quoted excerpt of what the parser found, or `nothing` when it found the end.
std::string describe_found(std::string_view text);

}  // namespace muster::cluster
