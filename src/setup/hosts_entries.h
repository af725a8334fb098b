// The lines of the managed /etc/hosts block, checked before anything is written. A node's address and host name
// come from that node (its Hello: SSH_CONNECTION and gethostname), and a hostile or broken node could report a
// name holding a newline or spaces, or an "address" that is not one, and so add its own lines to every node's
// /etc/hosts (`evil\n10.0.0.66 login.example.com`). Every line is `ADDRESS NAME [NAME...]` with ADDRESS an IPv4 or
// IPv6 address and every NAME a host name as cluster/host_name.h accepts it; anything else is refused, naming the
// node and showing the offending text with control characters escaped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::setup {

// The head's side: the line for `node` (the name the user gave it), from what it reported.
Result<std::string> hosts_entry(std::string_view node, std::string_view address, const std::vector<std::string>& names);

// The node's side (`muster node hosts-block` checks what it was given before it writes anything).
Result<void> check_hosts_entry(std::string_view line);

}  // namespace muster::setup
