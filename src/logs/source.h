// Where a piece of worker output came from: one stream (stdout or stderr) of one rank. A plain value,
// filled in by the head from the rank plan; the logs layer only reads it (prefixes, colours, filtering).
#pragma once

#include <string>

namespace muster::logs {

inline constexpr int kStdout = 1;
inline constexpr int kStderr = 2;

struct Source {
  int rank = 0;          // global rank, 0..world_size-1
  int local_rank = 0;    // rank within its node
  int node_rank = 0;     // index of the node in the plan; picks the prefix colour
  std::string node;      // node name as the user wrote it
  int stream = kStdout;  // kStdout or kStderr

  bool operator==(const Source&) const = default;
};

inline const char* stream_name(int stream) {
  return stream == kStderr ? "err" : "out";
}

}  // namespace muster::logs
