#include "container/shm_size.h"

#include <fmt/format.h>

#include <cctype>

#include "util/text.h"

namespace muster::container {

std::string ShmSize::compose() const {
  return unit ? fmt::format("{}{}", number, unit) : fmt::format("{}", number);
}

std::string ShmSize::kubernetes() const {
  if (!unit) return fmt::format("{}", number);
  return fmt::format("{}{}i", number, static_cast<char>(std::toupper(static_cast<unsigned char>(unit))));
}

Result<ShmSize> parse_shm_size(std::string_view text) {
  ShmSize size;
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i < 15) {
    size.number = size.number * 10 + (text[i] - '0');
    ++i;
  }
  std::string_view rest = text.substr(i);
  if (!rest.empty() && std::string_view("kmgtKMGT").find(rest.front()) != std::string_view::npos) {
    size.unit = static_cast<char>(std::tolower(static_cast<unsigned char>(rest.front())));
    rest.remove_prefix(1);
    if (rest.starts_with('i') || rest.starts_with('I')) rest.remove_prefix(1);
  }
  if (rest == "b" || rest == "B") rest.remove_prefix(1);
  if (i == 0 || !rest.empty() || size.number == 0) {
    return make_error(ErrorKind::usage, "--shm-size '{}' is not a size such as 16g, 512m or 16Gi",
                      one_line(text));
  }
  return size;
}

}  // namespace muster::container
