#include "cluster/hostfile.h"

#include <fmt/format.h>

#include <unordered_map>

#include "cluster/decimal.h"
#include "cluster/host_name.h"
#include "cluster/text_error.h"
#include "util/text.h"

namespace muster::cluster {
namespace {

// A whitespace-separated word of a line and its 1-based column.
struct Field {
  std::string_view text;
  int column;
};

// The line being parsed, so errors can say where they are.
struct LineRef {
  std::string_view file;
  int line;
  Error error(int column, std::string_view message) const {
    return error_in_file(file, line, column, message);
  }
};

// One host line, with the columns of its slot settings (0 = not given) for checks made after the line.
struct HostLine {
  Host host;
  int host_column = 1;
  int slots_column = 0;
  int max_slots_column = 0;
};

// The line without its CR (CRLF files) and its comment.
std::string_view strip_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line.substr(0, line.find('#'));
}

std::vector<Field> split_fields(std::string_view line) {
  auto is_blank = [](char c) { return c == ' ' || c == '\t'; };
  std::vector<Field> fields;
  size_t i = 0;
  while (i < line.size()) {
    if (is_blank(line[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < line.size() && !is_blank(line[end])) ++end;
    fields.push_back({line.substr(i, end - i), static_cast<int>(i) + 1});
    i = end;
  }
  return fields;
}

// The slot count `text` found right after `label` (`slots=`, `:`) at `column`; `key` names it in errors.
Result<int> parse_count(std::string_view text, std::string_view label, std::string_view key, int column,
                        const LineRef& at) {
  if (text.empty() || count_leading_digits(text) != text.size()) {
    return at.error(column,
                    fmt::format("expected a number after '{}', found {}", label, describe_found(text)));
  }
  auto value = parse_decimal(text, kMaxSlotsPerHost);
  if (!value) return at.error(column, fmt::format("{} {} is more than {}", key, text, kMaxSlotsPerHost));
  if (*value < 1) return at.error(column, fmt::format("{} must be at least 1, found {}", key, *value));
  return static_cast<int>(*value);
}

// `[user@]host[:N]`
Result<HostLine> parse_host_field(Field field, const LineRef& at) {
  auto colon = field.text.find(':');
  auto destination = field.text.substr(0, colon);
  if (auto problem = check_destination(destination)) {
    return at.error(field.column + static_cast<int>(problem->offset), problem->message);
  }
  HostLine line{.host = host_from_destination(destination), .host_column = field.column};
  if (colon == std::string_view::npos) return line;
  int column = field.column + static_cast<int>(colon) + 1;
  auto slots = parse_count(field.text.substr(colon + 1), ":", "slots", column, at);
  if (!slots) return slots.error();
  line.host.slots = *slots;
  line.slots_column = column;
  return line;
}

// `slots=N` or `max_slots=M`
Result<void> apply_setting(Field field, HostLine& line, const LineRef& at) {
  auto equals = field.text.find('=');
  if (equals == std::string_view::npos) {
    return at.error(field.column,
                    fmt::format("expected 'slots=N' or 'max_slots=N', found {}", describe_found(field.text)));
  }
  auto key = field.text.substr(0, equals);
  if (key != "slots" && key != "max_slots") {
    return at.error(field.column, fmt::format("unknown key '{}' (expected 'slots' or 'max_slots')", key));
  }
  bool is_slots = key == "slots";
  int& setting_column = is_slots ? line.slots_column : line.max_slots_column;
  if (setting_column != 0) return at.error(field.column, fmt::format("{} is given twice for this host", key));
  int column = field.column + static_cast<int>(equals) + 1;
  auto value = parse_count(field.text.substr(equals + 1), fmt::format("{}=", key), key, column, at);
  if (!value) return value.error();
  (is_slots ? line.host.slots : line.host.max_slots) = *value;
  setting_column = field.column;
  return {};
}

Result<HostLine> parse_host_line(const std::vector<Field>& fields, const LineRef& at) {
  auto line = parse_host_field(fields.front(), at);
  if (!line) return line.error();
  for (size_t i = 1; i < fields.size(); ++i) {
    if (auto applied = apply_setting(fields[i], *line, at); !applied) return applied.error();
  }
  const Host& host = line->host;
  if (host.slots != -1 && host.max_slots != -1 && host.max_slots < host.slots) {
    return at.error(line->max_slots_column,
                    fmt::format("max_slots={} is less than slots={}", host.max_slots, host.slots));
  }
  return line;
}

}  // namespace

Result<std::vector<Host>> parse_hostfile(std::string_view text, std::string_view filename) {
  std::vector<Host> hosts;
  std::unordered_map<std::string, int> first_line;  // host name -> the line it was first listed on
  int line_number = 0;
  for (std::string_view raw_line : split_lines(text)) {
    ++line_number;
    auto fields = split_fields(strip_line(raw_line));
    if (fields.empty()) continue;
    LineRef at{filename, line_number};
    auto line = parse_host_line(fields, at);
    if (!line) return line.error();
    auto [first, inserted] = first_line.emplace(line->host.name, line_number);
    if (!inserted) {
      return at.error(line->host_column, fmt::format("host '{}' is listed twice (first on line {})",
                                                     line->host.name, first->second));
    }
    hosts.push_back(std::move(line->host));
  }
  if (hosts.empty()) {
    return make_error(ErrorKind::parse, "{}: no hosts listed (expected lines like 'node1 slots=8')",
                      filename);
  }
  return hosts;
}

std::string format_hostfile(const std::vector<Host>& hosts) {
  std::string text;
  for (const Host& host : hosts) {
    text += host.destination();
    if (host.slots != -1) text += fmt::format(" slots={}", host.slots);
    if (host.max_slots != -1) text += fmt::format(" max_slots={}", host.max_slots);
    text += '\n';
  }
  return text;
}

}  // namespace muster::cluster
