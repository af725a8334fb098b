// The `hops` bit set of a Relay frame (docs/agent-protocol.md section 9): bit h (byte h/8, bit h%8) is the node h
// places down the relay chain from the agent that receives the frame; bit 0 is that agent itself. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace muster::protocol {

std::string hop_mask(const std::vector<uint32_t>& hops);
bool has_hop(std::string_view mask, uint32_t hop);
// The mask as the next agent down the chain sees it: every hop one closer (bit h+1 becomes bit h; bit 0 is
// dropped). Empty when no hop beyond this agent is set.
std::string next_hops(std::string_view mask);

}  // namespace muster::protocol
