// `muster exec`'s live output: every complete line a node writes, as it arrives, behind `node: ` (pdsh's
// prefix, so dshbak and clubak read it), on the stream it came on. Bytes are held per node and stream until
// their line is complete; finish() hands over what is left of a node's last line. A line
// longer than 64 KiB is shown in pieces of that size. Pure.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace muster::exec {

enum class OutStream { out, err };

class LiveLines {
 public:
  // The prefixed complete lines of `bytes` (with what was held before), each ending in '\n'.
  std::string feed(const std::string& node, OutStream stream, std::string_view bytes);
  // The node's held partial line on `stream`, prefixed, with a '\n' added; empty if none.
  std::string finish(const std::string& node, OutStream stream);

 private:
  std::map<std::pair<std::string, OutStream>, std::string> partial_;
};

}  // namespace muster::exec
