#include "logs/prefix.h"

#include <array>
#include <iterator>
#include <utility>

#include "util/edit_distance.h"

namespace muster::logs {
namespace {

// Field values as in PrefixFormat::Field; kept here so the table and the enum stay side by side.
constexpr std::array<std::string_view, 5> kNames = {"node", "rank", "local_rank", "node_rank", "stream"};

size_t digits(int value) {
  size_t n = 1;
  for (; value >= 10; value /= 10) ++n;
  return n;
}

void pad_number(std::string& out, int value, int count) {
  size_t width = digits(count > 1 ? count - 1 : 0);
  fmt::format_to(std::back_inserter(out), "{:>{}}", value, width);
}

Error format_error(std::string_view format, std::string_view what) {
  return make_error(ErrorKind::usage, "--prefix '{}': {}", format, what);
}

Error unknown_placeholder(std::string_view format, std::string_view name) {
  std::vector<std::string> candidates(kNames.begin(), kNames.end());
  auto suggestion = closest_match(name, candidates);
  std::string hint = suggestion ? fmt::format(" (did you mean {{{}}}?)", *suggestion) : "";
  return format_error(format, fmt::format("unknown placeholder {{{}}}{}; known: {{node}} {{rank}} "
                                          "{{local_rank}} {{node_rank}} {{stream}}, and {{{{ }}}} for braces",
                                          name, hint));
}

}  // namespace

PrefixFormat::PrefixFormat() : PrefixFormat(parse(kDefault).value()) {}

PrefixFormat::PrefixFormat(const PrefixLayout& layout) : layout_(layout) {}

Result<PrefixFormat> PrefixFormat::parse(std::string_view format, const PrefixLayout& layout) {
  PrefixFormat result(layout);
  std::string literal;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      literal += c;
      ++i;
      continue;
    }
    if (c == '}') return format_error(format, "a lone '}' (write '}}' for a literal brace)");
    if (c != '{') {
      literal += c;
      continue;
    }
    size_t close = format.find('}', i);
    if (close == std::string_view::npos) {
      return format_error(format, "a '{' without its '}' (write '{{' for a literal brace)");
    }
    std::string_view name = format.substr(i + 1, close - i - 1);
    size_t index = 0;
    while (index < kNames.size() && kNames[index] != name) ++index;
    if (index == kNames.size()) return unknown_placeholder(format, name);
    if (!literal.empty()) result.pieces_.push_back(Piece{Field::literal, std::exchange(literal, {})});
    result.pieces_.push_back(Piece{static_cast<Field>(index + 1), {}});
    i = close;
  }
  if (!literal.empty()) result.pieces_.push_back(Piece{Field::literal, std::move(literal)});
  return result;
}

std::string PrefixFormat::render(const Source& source) const {
  std::string out;
  render_to(out, source);
  return out;
}

void PrefixFormat::render_to(std::string& out, const Source& source) const {
  for (const Piece& piece : pieces_) {
    switch (piece.field) {
      case Field::literal:
        out += piece.text;
        break;
      case Field::node:
        out += source.node;
        if (source.node.size() < layout_.node_name_width) {
          out.append(layout_.node_name_width - source.node.size(), ' ');
        }
        break;
      case Field::rank:
        pad_number(out, source.rank, layout_.world_size);
        break;
      case Field::local_rank:
        pad_number(out, source.local_rank, layout_.max_local_ranks);
        break;
      case Field::node_rank:
        pad_number(out, source.node_rank, layout_.node_count);
        break;
      case Field::stream:
        out += stream_name(source.stream);
        break;
    }
  }
}

}  // namespace muster::logs
