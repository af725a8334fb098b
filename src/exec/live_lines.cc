#include "exec/live_lines.h"

namespace muster::exec {
namespace {

constexpr size_t kMaxHeldLine = 64 * 1024;

}  // namespace

std::string LiveLines::feed(const std::string& node, OutStream stream, std::string_view bytes) {
  std::string& held = partial_[{node, stream}];
  std::string out;
  size_t start = 0;
  for (size_t newline = bytes.find('\n'); newline != std::string_view::npos; newline = bytes.find('\n', start)) {
    out += node;
    out += ": ";
    out += held;
    held.clear();
    out.append(bytes.substr(start, newline + 1 - start));
    start = newline + 1;
  }
  held.append(bytes.substr(start));
  if (held.size() > kMaxHeldLine) {  // a line without end: shown in pieces rather than held without bound
    out += node + ": " + held + "\n";
    held.clear();
  }
  return out;
}

std::string LiveLines::finish(const std::string& node, OutStream stream) {
  auto found = partial_.find({node, stream});
  if (found == partial_.end() || found->second.empty()) return "";
  std::string out = node + ": " + found->second + "\n";
  partial_.erase(found);
  return out;
}

}  // namespace muster::exec
