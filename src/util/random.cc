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

}  // namespace muster
