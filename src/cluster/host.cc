#include "cluster/host.h"

namespace muster::cluster {

std::string Host::destination() const {
  return user.empty() ? name : user + "@" + name;
}

Host host_from_destination(std::string_view destination) {
  Host host;
  auto at = destination.find('@');
  host.name = destination.substr(at == std::string_view::npos ? 0 : at + 1);
  if (at != std::string_view::npos) host.user = destination.substr(0, at);
  return host;
}

}  // namespace muster::cluster
