#include "cluster/slot_filter_syntax.h"

#include <fmt/format.h>

#include "cluster/decimal.h"
#include "cluster/host_name.h"
#include "cluster/hostfile.h"
#include "cluster/text_error.h"

namespace muster::cluster {
namespace {

// Part of the filter text, and its offset in the whole filter.
struct Piece {
  std::string_view text;
  size_t offset;
};

std::vector<Piece> split(std::string_view text, char separator, size_t base_offset) {
  std::vector<Piece> pieces;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    pieces.push_back({text.substr(start, end - start), base_offset + start});
    if (end == text.size()) return pieces;
    start = end + 1;
  }
}

Result<void> parse_slot_list(Piece list, SlotFilterEntry& entry, const SlotFilter& filter) {
  for (Piece index : split(list.text, ',', list.offset)) {
    size_t digits = count_leading_digits(index.text);
    if (digits == 0 || digits != index.text.size()) {
      auto found = describe_found(index.text.substr(digits, 1));
      return filter.error_at(index.offset + digits, fmt::format("expected a slot index, found {}", found));
    }
    auto value = parse_decimal(index.text, kMaxSlotsPerHost - 1);
    if (!value) return filter.error_at(index.offset, fmt::format("slot index {} is too large", index.text));
    entry.slots.push_back(static_cast<int>(*value));
    entry.slot_offsets.push_back(index.offset);
  }
  return {};
}

Result<SlotFilterEntry> parse_entry(Piece piece, const SlotFilter& filter) {
  auto colon = piece.text.find(':');
  auto host = piece.text.substr(0, colon);
  if (auto problem = check_host_name(host)) {
    if (host.empty()) {
      auto found = describe_found(filter.text.substr(piece.offset, 1));
      return filter.error_at(piece.offset, fmt::format("expected a host name, found {}", found));
    }
    return filter.error_at(piece.offset + problem->offset, problem->message);
  }
  SlotFilterEntry entry{.host = std::string(host), .slots = {}, .offset = piece.offset, .slot_offsets = {}};
  if (colon == std::string_view::npos) return entry;
  Piece list{piece.text.substr(colon + 1), piece.offset + colon + 1};
  if (auto parsed = parse_slot_list(list, entry, filter); !parsed) return parsed.error();
  return entry;
}

}  // namespace

Error SlotFilter::error_at(size_t offset, std::string_view message) const {
  return error_in_expression(flag, text, offset, message);
}

Result<SlotFilter> parse_slot_filter(std::string_view text, std::string_view flag) {
  SlotFilter filter{.flag = flag, .text = text, .entries = {}};
  for (Piece piece : split(text, '@', 0)) {
    auto entry = parse_entry(piece, filter);
    if (!entry) return entry.error();
    filter.entries.push_back(std::move(*entry));
  }
  return filter;
}

}  // namespace muster::cluster
