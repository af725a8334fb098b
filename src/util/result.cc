#include "util/result.h"

namespace muster {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "usage";
    case ErrorKind::parse: return "parse";
    case ErrorKind::io: return "io";
    case ErrorKind::timeout: return "timeout";
    case ErrorKind::unreachable: return "unreachable";
    case ErrorKind::protocol: return "protocol";
    case ErrorKind::remote: return "remote";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::interrupted: return "interrupted";
    case ErrorKind::internal: return "internal";
  }
  return "unknown";
}

}  // namespace muster
