#include "util/random.h"

#include <chrono>
#include <random>

#include <fmt/chrono.h>
#include <fmt/core.h>

namespace muster {

std::string random_hex(int digits) {
  std::random_device device;
  std::string text;
  while (static_cast<int>(text.size()) < digits) text += fmt::format("{:08x}", device());
  return text.substr(0, static_cast<size_t>(digits));
}

std::string new_job_id() {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("{:%Y%m%d-%H%M%S}-{}", fmt::gmtime(now), random_hex(6));
}

std::string job_id_problem(std::string_view id) {
  constexpr size_t kMaxJobId = 128;
  if (id.empty()) return "a job id cannot be empty";
  if (id.size() > kMaxJobId) return fmt::format("a job id is at most {} characters", kMaxJobId);
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-';
    if (!ok) return fmt::format("'{}' is not a job id: letters, digits, '.', '_' and '-' only", id);
  }
  if (id.front() == '.' || id.front() == '-') {
    return fmt::format("'{}' is not a job id: it may not start with '{}'", id, id.front());
  }
  return "";
}

}  // namespace muster
