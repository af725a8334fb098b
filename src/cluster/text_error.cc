#include "cluster/text_error.h"

#include <fmt/format.h>

namespace muster::cluster {
namespace {

constexpr size_t kMaxExcerpt = 40;

}  // namespace

Error error_in_file(std::string_view file, int line, int column, std::string_view message) {
  return make_error(ErrorKind::parse, "{}:{}:{}: {}", file, line, column, message);
}

Error error_in_expression(std::string_view what, std::string_view text, size_t offset,
                          std::string_view message) {
  return make_error(ErrorKind::parse, "{} \"{}\", column {}: {}", what, text, offset + 1, message);
}

std::string describe_found(std::string_view text) {
  if (text.empty()) return "nothing";
  if (text.size() > kMaxExcerpt) return fmt::format("'{}...'", text.substr(0, kMaxExcerpt));
  return fmt::format("'{}'", text);
}

}  // namespace muster::cluster
