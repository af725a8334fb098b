#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>
#define XXH_INLINE_ALL  // header-only: the binary pushed to nodes must not need libxxhash there
#include <xxhash.h>

#include "posix/exec.h"
#include "transport/transport.h"
#include "util/sha256.h"

namespace muster::transport {

Result<SelfBinary> self_binary() {
  // The program, also when it runs under an explicit loader (the agent in a container: posix/exec.h).
  std::filesystem::path path = posix::self_program_path();
  if (path.empty()) return make_error(ErrorKind::io, "cannot find muster's own executable (/proc/self/exe)");
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorKind::io, "cannot read '{}': {}", path.string(), std::strerror(errno));
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  Sha256 sha256;
  char buffer[1 << 16];
  uint64_t size = 0;
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    XXH3_64bits_update(state, buffer, static_cast<size_t>(in.gcount()));
    sha256.update(std::string_view(buffer, static_cast<size_t>(in.gcount())));
    size += static_cast<uint64_t>(in.gcount());
  }
  uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return SelfBinary{path.string(), fmt::format("{:016x}", hash), size, sha256.hex_digest()};
}

Result<std::string> read_self_binary(const SelfBinary& binary) {
  std::ifstream in(binary.path, std::ios::binary);
  std::string bytes(binary.size, '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    return make_error(ErrorKind::io, "cannot read '{}' to upload it", binary.path);
  }
  return bytes;
}

}  // namespace muster::transport
