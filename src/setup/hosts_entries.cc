#include "setup/hosts_entries.h"

#include "cluster/host_name.h"
#include "gen/provenance.h"
#include "posix/socket.h"

namespace muster::setup {
namespace {

Result<void> check_address(std::string_view node, std::string_view address) {
  if (posix::is_ip_address(std::string(address))) return {};
  return make_error(ErrorKind::remote,
                    "{} reports its address as '{}', which is not an IPv4 or IPv6 address; refusing to write it into "
                    "/etc/hosts",
                    node, one_line(address));
}

Result<void> check_name(std::string_view node, std::string_view name) {
  auto problem = cluster::check_host_name(name);
  if (!problem) return {};
  return make_error(ErrorKind::remote,
                    "{} reports the host name '{}', which is not a valid host name ({}); refusing to write it into "
                    "/etc/hosts (fix the node's host name: hostnamectl set-hostname NAME)",
                    node, one_line(name), problem->message);
}

}  // namespace

Result<std::string> hosts_entry(std::string_view node, std::string_view address, const std::vector<std::string>& names) {
  if (auto ok = check_address(node, address); !ok) return ok.error();
  std::string line(address);
  for (const auto& name : names) {
    if (auto ok = check_name(node, name); !ok) return ok.error();
    line += " " + name;
  }
  return line;
}

Result<void> check_hosts_entry(std::string_view line) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start <= line.size()) {
    size_t space = line.find(' ', start);
    if (space == std::string_view::npos) space = line.size();
    words.emplace_back(line.substr(start, space - start));
    start = space + 1;
  }
  if (words.size() < 2) {
    return make_error(ErrorKind::usage, "'{}' is not an /etc/hosts line (ADDRESS NAME...)", one_line(line));
  }
  auto entry = hosts_entry("the line", words.front(), std::vector<std::string>(words.begin() + 1, words.end()));
  if (!entry) return entry.error();
  return {};
}

}  // namespace muster::setup
