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

bool has_any_hop(std::string_view mask, const std::vector<uint32_t>& nodes) {
  for (uint32_t node : nodes) {
    if (has_hop(mask, node)) return true;
  }
  return false;
}

}  // namespace muster::protocol
