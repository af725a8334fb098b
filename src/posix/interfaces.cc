#include "posix/interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>

namespace muster::posix {
namespace {

std::string address_text(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  const void* raw = address->sa_family == AF_INET
                        ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(address)->sin_addr)
                        : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
  inet_ntop(address->sa_family, raw, text, sizeof text);
  return text;
}

}  // namespace

Result<std::vector<InterfaceAddress>> interface_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return make_error(ErrorKind::io, "getifaddrs: {}", std::strerror(errno));
  std::vector<InterfaceAddress> result;
  for (ifaddrs* entry = list; entry; entry = entry->ifa_next) {
    if (!entry->ifa_addr) continue;
    int family = entry->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    result.push_back(InterfaceAddress{.interface = entry->ifa_name,
                                      .address = address_text(entry->ifa_addr),
                                      .family = family == AF_INET ? 4 : 6,
                                      .loopback = (entry->ifa_flags & IFF_LOOPBACK) != 0,
                                      .up = (entry->ifa_flags & IFF_UP) != 0});
  }
  ::freeifaddrs(list);
  return result;
}

}  // namespace muster::posix
