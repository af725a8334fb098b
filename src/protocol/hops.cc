#include "protocol/hops.h"

namespace muster::protocol {

std::string hop_mask(const std::vector<uint32_t>& hops) {
  std::string mask;
  for (uint32_t hop : hops) {
    if (mask.size() <= hop / 8) mask.resize(hop / 8 + 1, '\0');
    mask[hop / 8] = static_cast<char>(static_cast<uint8_t>(mask[hop / 8]) | (1u << (hop % 8)));
  }
  return mask;
}

bool has_hop(std::string_view mask, uint32_t hop) {
  return hop / 8 < mask.size() && (static_cast<uint8_t>(mask[hop / 8]) >> (hop % 8) & 1u) != 0;
}

std::string next_hops(std::string_view mask) {
  std::string next(mask.size(), '\0');
  bool any = false;
  for (size_t i = 0; i < mask.size(); ++i) {
    uint8_t byte = static_cast<uint8_t>(mask[i]) >> 1;
    if (i + 1 < mask.size()) byte |= static_cast<uint8_t>((static_cast<uint8_t>(mask[i + 1]) & 1u) << 7);
    next[i] = static_cast<char>(byte);
    any = any || byte != 0;
  }
  if (!any) return "";
  while (!next.empty() && next.back() == '\0') next.pop_back();
  return next;
}

}  // namespace muster::protocol
