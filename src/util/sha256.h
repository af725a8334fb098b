// SHA-256 (FIPS 180-4), computed with Debian's nettle (linked statically: the binary pushed to nodes needs only
// glibc). What the head tells the bootstrap script its binary must hash to, and what the node checks with
// coreutils' sha256sum before it runs a cached or uploaded binary (docs/agent-protocol.md section 1).
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct sha256_ctx;  // nettle's

namespace muster {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  // 64 lowercase hex digits, as sha256sum prints them. Ends this hash: call once.
  std::string hex_digest();

 private:
  std::unique_ptr<sha256_ctx> context_;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace muster
