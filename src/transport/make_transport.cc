#include "transport/transport.h"

namespace muster::transport {

std::unique_ptr<Transport> make_transport(TransportKind kind, SelfBinary binary, SshOptions ssh) {
  switch (kind) {
    case TransportKind::local: return make_local_transport(std::move(binary));
    case TransportKind::ssh: return make_ssh_transport(std::move(binary), std::move(ssh));
    case TransportKind::slurm: return make_slurm_transport(std::move(binary));
  }
  return nullptr;
}

}  // namespace muster::transport
