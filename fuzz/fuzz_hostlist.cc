// expand_hostlist on arbitrary text. Invariants: no expansion beyond kMaxHostlistNames, names valid and
// distinct, compress_hostlist round-trips them in order, and excluding a list from itself leaves nothing.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_set>

#include "cluster/host_name.h"
#include "cluster/hostlist.h"
#include "fuzz_check.h"

using namespace muster;
using namespace muster::cluster;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view expr(reinterpret_cast<const char*>(data), size);
  auto names = expand_hostlist(expr);
  if (!names) {
    FUZZ_CHECK(names.error().kind == ErrorKind::parse);
    FUZZ_CHECK(names.error().message.starts_with("hostlist \""));
    return 0;
  }
  FUZZ_CHECK(names->size() <= kMaxHostlistNames);
  std::unordered_set<std::string> seen;
  for (const std::string& name : *names) {
    FUZZ_CHECK(!check_destination(name));
    FUZZ_CHECK(seen.insert(name).second);
  }
  if (names->empty()) return 0;  // everything excluded: nothing to compress
  std::string compressed = compress_hostlist(*names);
  auto again = expand_hostlist(compressed);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(*again == *names);
  auto left = exclude_hosts(*names, compressed);
  FUZZ_CHECK(left.has_value() && left->empty());
  return 0;
}
