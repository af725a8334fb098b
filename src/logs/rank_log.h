// Byte-exact per-rank log files: <dir>/rank-<N>.log receives every byte rank N wrote, stdout and stderr
// interleaved in arrival order, exactly as received - '\r', NULs, escapes and broken UTF-8 included.
// Nothing is filtered, split or prefixed here (that is the terminal's business). Owns one ByteSink per
// rank; the default opener makes FileSinks, the head may pass one that makes posix-Fd sinks.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "logs/byte_sink.h"
#include "util/result.h"

namespace muster::logs {

class RankLogSet {
 public:
  using SinkOpener = std::function<Result<std::unique_ptr<ByteSink>>(const std::filesystem::path&)>;

  // Creates `dir` (and parents) if needed and opens rank-0.log .. rank-<rank_count-1>.log.
  static Result<RankLogSet> open(const std::filesystem::path& dir, int rank_count, SinkOpener opener = {});

  Result<void> write(int rank, std::string_view bytes);
  Result<void> flush();  // all ranks; the first error wins

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path path(int rank) const;
  int rank_count() const { return static_cast<int>(sinks_.size()); }

 private:
  std::filesystem::path dir_;
  std::vector<std::unique_ptr<ByteSink>> sinks_;
};

}  // namespace muster::logs
