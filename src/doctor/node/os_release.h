// /etc/os-release (os-release(5)): the distribution's ID, VERSION_ID and PRETTY_NAME. Pure parsing; the
// gatherer reads the file.
#pragma once

#include <string>
#include <string_view>

namespace muster::doctor {

struct OsRelease {
  std::string id;           // "debian", "ubuntu", "rocky"
  std::string version_id;   // "12", "22.04"
  std::string pretty_name;  // "Debian GNU/Linux 12 (bookworm)"
};

// KEY=VALUE lines; VALUE unquoted, "double-quoted" (with \" \\ \$ \` escapes) or 'single-quoted'. Comments,
// blank lines and malformed lines are skipped; missing keys stay empty.
OsRelease parse_os_release(std::string_view text);

}  // namespace muster::doctor
