// Symbols of a glibc newer than the oldest one muster must start on (Ubuntu 22.04's 2.35; the binary is pushed
// to nodes as is), provided by muster itself. One function so far: the static libstdc++ of g++ 12 refers to
// arc4random (GLIBC_2.36) from std::random_device, and its stdexcept.o pulls that object in, so every binary
// built on Debian 12 would need glibc 2.36 just to load. The muster executable is linked with
// --wrap=arc4random (src/cli/CMakeLists.txt): that reference lands here, on getrandom(2) (glibc 2.25).
// tests/local/binary_test.sh checks that no newer symbol is needed.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" uint32_t __wrap_arc4random(void) {  // NOLINT: the name the linker's --wrap asks for
  uint32_t value = 0;
  while (true) {
    ssize_t got = ::getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
    if (got < 0 && errno != EINTR) std::abort();  // no kernel randomness: std::random_device would throw here
  }
}
