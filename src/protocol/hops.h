// The `hops` bit set of a Relay frame (docs/agent-protocol.md section 9): bit i (byte i/8, bit i%8) is the node with
// index i in the relay tree. Every agent on the way sees the same mask. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace muster::protocol {

std::string hop_mask(const std::vector<uint32_t>& hops);
bool has_hop(std::string_view mask, uint32_t hop);
// Whether any of `nodes` has its bit set (a subtree the frame must be forwarded into).
bool has_any_hop(std::string_view mask, const std::vector<uint32_t>& nodes);

}  // namespace muster::protocol
