// parse_hostfile on arbitrary text. Invariants: every accepted host is valid and unique, errors point into
// the file, and format_hostfile's output parses back to the same hosts.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "cluster/host_name.h"
#include "cluster/hostfile.h"
#include "fuzz_check.h"

using namespace muster;
using namespace muster::cluster;

namespace {

void check_host(const Host& host) {
  FUZZ_CHECK(!check_host_name(host.name));
  FUZZ_CHECK(host.user.empty() || !check_user_name(host.user));
  FUZZ_CHECK(host.slots == -1 || (host.slots >= 1 && host.slots <= kMaxSlotsPerHost));
  FUZZ_CHECK(host.max_slots == -1 || (host.max_slots >= 1 && host.max_slots <= kMaxSlotsPerHost));
  FUZZ_CHECK(host.slots == -1 || host.max_slots == -1 || host.max_slots >= host.slots);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto hosts = parse_hostfile(text, "fuzz.txt");
  if (!hosts) {
    FUZZ_CHECK(hosts.error().kind == ErrorKind::parse);
    FUZZ_CHECK(hosts.error().message.starts_with("fuzz.txt:"));
    return 0;
  }
  FUZZ_CHECK(!hosts->empty());
  std::set<std::string> names;
  for (const Host& host : *hosts) {
    check_host(host);
    FUZZ_CHECK(names.insert(host.name).second);
  }
  auto again = parse_hostfile(format_hostfile(*hosts), "formatted.txt");
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(*again == *hosts);
  return 0;
}
