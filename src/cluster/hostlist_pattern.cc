#include "cluster/hostlist_pattern.h"

#include <fmt/format.h>

#include <limits>
#include <utility>

#include "cluster/decimal.h"
#include "cluster/host_name.h"
#include "cluster/text_error.h"

namespace muster::cluster {
namespace {

constexpr size_t kMaxNumberDigits = 18;  // every such number fits an int64_t

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}
bool is_literal_char(char c) {
  return is_host_name_char(c) || c == '@';
}

// The widest number a bracket group prints, for checking the length of the names it makes.
std::string widest_number(const std::vector<NumberRange>& ranges) {
  std::string widest;
  for (const NumberRange& range : ranges) {
    std::string text = format_padded(range.high, range.width);
    if (text.size() > widest.size()) widest = std::move(text);
  }
  return widest;
}

// Reads an expression left to right; every error names the column where it stopped.
class PatternParser {
 public:
  PatternParser(std::string_view expr, std::string_view what) : expr_(expr), what_(what) {}

  Result<std::vector<HostPattern>> parse_all();

 private:
  Result<HostPattern> parse_item();
  Result<PatternPiece> parse_literal();
  Result<PatternPiece> parse_bracket();
  Result<NumberRange> parse_range();
  Result<int64_t> parse_number();
  Result<void> check_names(const HostPattern& pattern) const;

  bool at_end() const { return pos_ == expr_.size(); }
  char peek() const { return at_end() ? '\0' : expr_[pos_]; }
  void skip_blanks() {
    while (!at_end() && is_blank(peek())) ++pos_;
  }
  Error error(size_t offset, std::string_view message) const {
    return error_in_expression(what_, expr_, offset, message);
  }
  Error expected(std::string_view thing) const {
    return error(pos_, fmt::format("expected {}, found {}", thing, describe_found(expr_.substr(pos_, 1))));
  }

  std::string_view expr_;
  std::string_view what_;
  size_t pos_ = 0;
};

Result<std::vector<HostPattern>> PatternParser::parse_all() {
  std::vector<HostPattern> patterns;
  while (true) {
    auto pattern = parse_item();
    if (!pattern) return pattern.error();
    patterns.push_back(std::move(*pattern));
    if (at_end()) return patterns;
    if (peek() != ',') return expected("',' or the end of the hostlist");
    ++pos_;
  }
}

Result<HostPattern> PatternParser::parse_item() {
  skip_blanks();
  HostPattern pattern;
  if (peek() == '-') {
    pattern.exclude = true;
    ++pos_;
  }
  pattern.offset = pos_;
  while (!at_end() && peek() != ',' && !is_blank(peek())) {
    auto piece = peek() == '[' ? parse_bracket() : parse_literal();
    if (!piece) return piece.error();
    pattern.pieces.push_back(std::move(*piece));
  }
  if (pattern.pieces.empty()) return expected("a host name");
  skip_blanks();
  if (auto checked = check_names(pattern); !checked) return checked.error();
  return pattern;
}

Result<PatternPiece> PatternParser::parse_literal() {
  size_t start = pos_;
  while (!at_end() && is_literal_char(peek())) ++pos_;
  if (pos_ == start && peek() == ']') return error(pos_, "found ']' without a '[' before it");
  if (pos_ == start) {
    return error(pos_,
                 fmt::format("invalid character {} in host name", describe_found(expr_.substr(pos_, 1))));
  }
  return PatternPiece{.literal = std::string(expr_.substr(start, pos_ - start)), .ranges = {}};
}

Result<PatternPiece> PatternParser::parse_bracket() {
  ++pos_;  // '['
  PatternPiece piece;
  while (true) {
    auto range = parse_range();
    if (!range) return range.error();
    piece.ranges.push_back(*range);
    if (peek() == ']') {
      ++pos_;
      return piece;
    }
    if (peek() != ',') return expected("',' or ']'");
    ++pos_;
  }
}

Result<NumberRange> PatternParser::parse_range() {
  size_t start = pos_;
  auto low = parse_number();
  if (!low) return low.error();
  NumberRange range{.low = *low, .high = *low, .width = pos_ - start};
  if (peek() != '-') return range;
  ++pos_;
  auto high = parse_number();
  if (!high) return high.error();
  range.high = *high;
  if (range.high < range.low) {
    auto text = expr_.substr(start, pos_ - start);
    return error(start, fmt::format("range '{}' counts down; write the lower number first", text));
  }
  return range;
}

Result<int64_t> PatternParser::parse_number() {
  size_t digits = count_leading_digits(expr_.substr(pos_));
  if (digits == 0) return expected("a number");
  if (digits > kMaxNumberDigits)
    return error(pos_, fmt::format("number has more than {} digits", kMaxNumberDigits));
  auto value = parse_decimal(expr_.substr(pos_, digits), std::numeric_limits<int64_t>::max());
  pos_ += digits;
  return *value;
}

// Every name of a pattern has the same characters around its numbers, so checking the longest one checks
// them all. A problem inside the leading literal text gets its exact column.
Result<void> PatternParser::check_names(const HostPattern& pattern) const {
  std::string longest;
  for (const PatternPiece& piece : pattern.pieces) {
    longest += piece.ranges.empty() ? piece.literal : widest_number(piece.ranges);
  }
  auto problem = check_destination(longest);
  if (!problem) return {};
  const PatternPiece& first = pattern.pieces.front();
  bool in_leading_literal = first.ranges.empty() && problem->offset < first.literal.size();
  return error(pattern.offset + (in_leading_literal ? problem->offset : 0), problem->message);
}

void expand_from(const HostPattern& pattern, size_t piece_index, std::string& name,
                 std::vector<std::string>& names) {
  if (piece_index == pattern.pieces.size()) {
    names.push_back(name);
    return;
  }
  const PatternPiece& piece = pattern.pieces[piece_index];
  size_t kept = name.size();
  if (piece.ranges.empty()) {
    name += piece.literal;
    expand_from(pattern, piece_index + 1, name, names);
  }
  for (const NumberRange& range : piece.ranges) {
    for (int64_t n = range.low; n <= range.high; ++n) {
      name += format_padded(n, range.width);
      expand_from(pattern, piece_index + 1, name, names);
      name.resize(kept);
    }
  }
  name.resize(kept);
}

// a + b, or `cap` if that is more (a <= cap).
uint64_t saturating_add(uint64_t a, uint64_t b, uint64_t cap) {
  return b >= cap || a >= cap - b ? cap : a + b;
}

}  // namespace

Result<std::vector<HostPattern>> parse_hostlist_patterns(std::string_view expr, std::string_view what) {
  return PatternParser(expr, what).parse_all();
}

uint64_t count_pattern_names(const HostPattern& pattern, uint64_t limit) {
  const uint64_t cap = limit + 1;
  uint64_t count = 1;
  for (const PatternPiece& piece : pattern.pieces) {
    if (piece.ranges.empty()) continue;
    uint64_t in_bracket = 0;
    for (const NumberRange& range : piece.ranges) {
      in_bracket = saturating_add(in_bracket, static_cast<uint64_t>(range.high - range.low) + 1, cap);
    }
    if (__builtin_mul_overflow(count, in_bracket, &count) || count > cap) count = cap;
  }
  return count;
}

void expand_pattern(const HostPattern& pattern, std::vector<std::string>& names) {
  std::string name;
  expand_from(pattern, 0, name, names);
}

}  // namespace muster::cluster
