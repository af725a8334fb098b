#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include <fmt/core.h>

#include "posix/exec.h"
#include "posix/file.h"
#include "posix/private_dir.h"
#include "transport/transport.h"
#include "util/sha256.h"
#include "util/text.h"
#include "util/xxh3.h"

namespace muster::transport {

namespace {

// Hashing the 3-7 MB executable (SHA-256 above all) cost the head ~7 ms of CPU on every command on the testbed's
// machine. Both hashes are kept in the user's private cache directory with the file's identity (device, inode,
// size, mtime, ctime: any write or chmod changes the ctime), as the nodes keep their muster.checked stamp, and
// reused while the identity is unchanged. Without a cache directory they are computed every time. One record per
// path of the executable (an installed muster and a build tree's, or two builds a benchmark compares, would
// otherwise evict each other on every command and hash again each time).
std::string identity_of(const posix::FileStat& st) {
  return fmt::format("{} {} {} {} {}", st.device, st.inode, st.size, st.mtime_ns, st.ctime_ns);
}

std::string cache_file(const std::string& executable) {
  auto dir = posix::make_private_dir(posix::user_cache_dir(), "muster");
  if (!dir) return std::string();
  Xxh3Hasher name;
  name.update(executable);
  return fmt::format("{}/self-binary-{:016x}", *dir, name.digest());
}

// "<identity> <xxh3> <sha256>" from the cache when its identity is `identity`.
std::optional<std::pair<std::string, std::string>> cached_hashes(const std::string& file, const std::string& identity) {
  if (file.empty()) return std::nullopt;
  auto text = posix::read_text_file(file);
  if (!text || !text->starts_with(identity + " ")) return std::nullopt;
  std::string_view rest = trim(std::string_view(*text).substr(identity.size() + 1));
  if (rest.size() != 16 + 1 + 64 || rest[16] != ' ') return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, 16)), std::string(rest.substr(17)));
}

}  // namespace

Result<SelfBinary> self_binary() {
  // The program, also when it runs under an explicit loader (the agent in a container: posix/exec.h).
  std::filesystem::path path = posix::self_program_path();
  if (path.empty()) return make_error(ErrorKind::io, "cannot find muster's own executable (/proc/self/exe)");
  auto fd = posix::open_read(path.string(), /*no_follow=*/false);
  if (!fd) return make_error(ErrorKind::io, "cannot read '{}': {}", path.string(), fd.error().message);
  auto st = posix::stat_fd(fd->get());
  if (!st) return make_error(ErrorKind::io, "cannot read '{}': {}", path.string(), st.error().message);
  std::string identity = identity_of(*st);
  std::string cache = cache_file(path.string());
  if (auto hashes = cached_hashes(cache, identity)) return SelfBinary{path.string(), hashes->first, st->size, hashes->second};
  Xxh3Hasher xxh3;
  Sha256 sha256;
  std::string buffer(1 << 16, '\0');
  uint64_t size = 0;
  while (true) {
    auto got = posix::read_full(fd->get(), buffer);
    if (!got) return make_error(ErrorKind::io, "cannot read '{}': {}", path.string(), got.error().message);
    if (*got == 0) break;
    xxh3.update(std::string_view(buffer.data(), *got));
    sha256.update(std::string_view(buffer.data(), *got));
    size += *got;
  }
  SelfBinary self{path.string(), fmt::format("{:016x}", xxh3.digest()), size, sha256.hex_digest()};
  if (!cache.empty() && size == st->size) {
    (void)posix::write_file_atomic(cache, fmt::format("{} {} {}\n", identity, self.build_id, self.sha256), 0600);
  }
  return self;
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
