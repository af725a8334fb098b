// Pure text edits that `muster setup` makes to node files. Each is idempotent: applying it to its own output
// changes nothing, so a second `setup` run leaves every file byte-identical. Nothing outside what the edit is
// about is touched (other lines, their order, comments, missing final newline).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace muster::setup {

inline constexpr std::string_view kBlockBegin = "# BEGIN muster managed block: written by `muster setup hosts`; edit the hostfile, not this";
inline constexpr std::string_view kBlockEnd = "# END muster managed block";

// /etc/hosts with the managed block holding exactly `lines` ("10.0.0.1 node1"): an existing block is
// replaced in place, else the block is appended. With `fix_loopback`, lines that map a loopback address
// other than 127.0.0.1 (Debian's "127.0.1.1 <hostname>") to `own_name` lose that name (the line goes when
// no name is left); without it they stay.
std::string apply_hosts_block(std::string_view current, const std::vector<std::string>& lines, bool fix_loopback,
                              std::string_view own_name);

// Whether `current` maps `own_name` to a loopback address other than 127.0.0.1 (the trap that makes gloo and
// NCCL bind to 127.0.1.1); used to warn when --fix-loopback was not given.
bool has_loopback_self_mapping(std::string_view current, std::string_view own_name);

// `current` with every line of `lines` that it does not already hold (exactly) appended, in order.
std::string add_missing_lines(std::string_view current, const std::vector<std::string>& lines);

}  // namespace muster::setup
