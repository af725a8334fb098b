#include "doctor/port_check.h"

#include <fmt/core.h>

#include "posix/socket.h"

namespace muster::doctor {

std::string run_port_check(const PortCheck& check) {
  if (check.listen_port > 0) {
    auto listener = posix::listen_tcp(check.listen_port);
    if (!listener) return fmt::format("in-use {}\n", listener.error().message);
    return fmt::format("accepted {}\n", posix::accept_connections(listener->get(), check.expect, check.seconds * 1000));
  }
  auto reached = posix::connect_tcp(check.connect_host, check.connect_port, check.seconds * 1000);
  return reached ? "reached\n" : fmt::format("unreachable {}\n", reached.error().message);
}

}  // namespace muster::doctor
