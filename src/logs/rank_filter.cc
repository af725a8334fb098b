#include "logs/rank_filter.h"

#include <charconv>
#include <optional>

#include "util/text.h"

namespace muster::logs {
namespace {

std::optional<int> parse_rank(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

Error bad_token(std::string_view token, std::string_view spec, std::string_view why) {
  return make_error(ErrorKind::usage,
                    "--ranks: bad token '{}' in '{}': {} (expected 'all', 'none', a rank like 3, "
                    "or a range like 0-3, separated by commas)",
                    token, spec, why);
}

}  // namespace

RankFilter RankFilter::none() {
  RankFilter filter;
  filter.all_ = false;
  return filter;
}

Result<RankFilter> RankFilter::parse(std::string_view spec) {
  if (trim(spec) == "all") return RankFilter();
  if (trim(spec) == "none") return none();  // every rank's lines only in its log (doctor --fabric)
  RankFilter filter;
  filter.all_ = false;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string_view token = trim(spec.substr(pos, comma - pos));
    pos = comma + 1;
    if (token.empty()) return bad_token(token, spec, "empty");
    size_t dash = token.find('-');
    auto first = parse_rank(trim(token.substr(0, dash)));
    auto last = dash == std::string_view::npos ? first : parse_rank(trim(token.substr(dash + 1)));
    if (!first || !last) return bad_token(token, spec, "not a rank number");
    if (*last < *first) return bad_token(token, spec, "range runs backwards");
    filter.ranges_.push_back(Range{*first, *last, std::string(token)});
  }
  return filter;
}

bool RankFilter::contains(int rank) const {
  if (all_) return true;
  for (const Range& range : ranges_) {
    if (rank >= range.first && rank <= range.last) return true;
  }
  return false;
}

Result<void> RankFilter::check_world_size(int world_size) const {
  for (const Range& range : ranges_) {
    if (range.last >= world_size) {
      return make_error(ErrorKind::usage,
                        "--ranks: token '{}' names rank {}, but the job has {} rank{} (0-{})", range.token,
                        range.last, world_size, world_size == 1 ? "" : "s", world_size - 1);
    }
  }
  return {};
}

}  // namespace muster::logs
