#include "telemetry/step_lines.h"

#include <charconv>
#include <cstdlib>

#include "util/text.h"

namespace muster::telemetry {
namespace {

std::optional<double> seconds(std::string_view text) {
  std::string copy(text);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str() || *end != '\0' || !(value >= 0) || value > 1e6) return std::nullopt;
  return value;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<MarkerLine> parse_marker_line(std::string_view line) {
  line = trim(line);
  if (line != "step" && !line.starts_with("step ")) return std::nullopt;
  MarkerLine marker;
  std::string_view rest = line.substr(4);
  while (!rest.empty()) {
    rest = trim(rest);
    size_t space = rest.find(' ');
    std::string_view word = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space);
    size_t eq = word.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "rank") {
      uint32_t rank = 0;
      auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), rank);
      if (error == std::errc() && end == value.data() + value.size()) marker.rank = rank;
    } else if (key == "wait") {
      marker.wait_s = seconds(value);
    } else if (key == "compute") {
      marker.compute_s = seconds(value);
    }
  }
  return marker;
}

std::optional<uint64_t> parse_tqdm_count(std::string_view line) {
  size_t bracket = line.rfind(" [");
  if (bracket == std::string_view::npos || bracket == 0) return std::nullopt;
  std::string_view inside = line.substr(bracket + 2);
  size_t close = inside.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  inside = inside.substr(0, close);
  // The rate: "it/s" or "s/it" (or "?it/s" before the first update).
  if (inside.find("it/s") == std::string_view::npos && inside.find("s/it") == std::string_view::npos) {
    return std::nullopt;
  }
  // The counter just before " [": "45/100" or "45it".
  size_t start = bracket;
  while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '|') --start;
  std::string_view counter = line.substr(start, bracket - start);
  size_t digits = 0;
  while (digits < counter.size() && is_digit(counter[digits])) ++digits;
  if (digits == 0) return std::nullopt;
  std::string_view after = counter.substr(digits);
  if (!after.empty() && after[0] != '/' && after != "it") return std::nullopt;
  uint64_t count = 0;
  std::from_chars(counter.data(), counter.data() + digits, count);
  return count;
}

void OutputSteps::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    size_t end = chunk.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      if (partial_.size() + chunk.size() > kMaxLine) {
        overlong_ = true;
        partial_.clear();
      } else {
        partial_.append(chunk);
      }
      return;
    }
    if (!overlong_) {
      if (partial_.empty()) {
        line(chunk.substr(0, end));
      } else if (partial_.size() + end <= kMaxLine) {
        partial_.append(chunk.substr(0, end));
        line(partial_);
      }
    }
    partial_.clear();
    overlong_ = false;
    chunk.remove_prefix(end + 1);
  }
}

void OutputSteps::line(std::string_view text) {
  if (text.empty()) return;
  if (pattern_ && std::regex_search(text.begin(), text.end(), *pattern_)) ++pattern_steps_;
  if (!tqdm_ || (text.find("it/s") == std::string_view::npos && text.find("s/it") == std::string_view::npos)) return;
  auto count = parse_tqdm_count(text);
  if (!count) return;
  if (tqdm_last_ && *count >= *tqdm_last_) {
    tqdm_steps_ += static_cast<uint32_t>(*count - *tqdm_last_);
  } else if (tqdm_last_) {
    tqdm_steps_ += static_cast<uint32_t>(*count);  // a new bar started (the next epoch)
  }
  tqdm_last_ = *count;
}

uint32_t OutputSteps::take_pattern_steps() { return std::exchange(pattern_steps_, 0); }
uint32_t OutputSteps::take_tqdm_steps() { return std::exchange(tqdm_steps_, 0); }

Result<std::shared_ptr<const std::regex>> compile_step_pattern(const std::string& pattern) {
  try {
    return std::make_shared<const std::regex>(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& error) {
    return make_error(ErrorKind::usage, "--step-pattern '{}' is not a valid regular expression: {}", pattern,
                      error.what());
  }
}

}  // namespace muster::telemetry
