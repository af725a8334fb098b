#include "config/settings.h"

#include <fmt/core.h>

namespace muster::config {

std::string Source::text() const { return fmt::format("{}:{}", file, line); }

std::string Setting::section_name() const {
  std::string name;
  for (const auto& part : section) name += (name.empty() ? "" : ".") + part;
  return name;
}

std::string Setting::display() const { return section.empty() ? key : "[" + section_name() + "] " + key; }

std::string ConfigFile::directory() const {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace muster::config
