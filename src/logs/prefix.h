// The text put before every line a rank prints on the terminal, from a user format such as the default
// "[{node}:{rank}] ". Placeholders: {node} {rank} {local_rank} {node_rank} {stream} ("out"/"err");
// "{{" and "}}" are literal braces. Numbers are right-aligned and node names left-aligned to the widest
// value the job can produce (PrefixLayout), so output columns line up. Plain text only: colour is the
// terminal view's business. parse() validates the format once; render() cannot fail.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "logs/source.h"
#include "util/result.h"

namespace muster::logs {

// What the widths are padded to. The defaults pad nothing.
struct PrefixLayout {
  int world_size = 1;          // {rank} is padded to the width of world_size-1
  int node_count = 1;          // {node_rank}: width of node_count-1
  int max_local_ranks = 1;     // {local_rank}: width of max_local_ranks-1
  size_t node_name_width = 0;  // {node}: padded with spaces to this many bytes
};

class PrefixFormat {
 public:
  static constexpr std::string_view kDefault = "[{node}:{rank}] ";

  PrefixFormat();  // kDefault, no padding
  static Result<PrefixFormat> parse(std::string_view format, const PrefixLayout& layout = {});

  std::string render(const Source& source) const;
  void render_to(std::string& out, const Source& source) const;

 private:
  enum class Field { literal, node, rank, local_rank, node_rank, stream };
  struct Piece {
    Field field = Field::literal;
    std::string text;  // for literal
  };

  explicit PrefixFormat(const PrefixLayout& layout);

  std::vector<Piece> pieces_;
  PrefixLayout layout_;
};

}  // namespace muster::logs
