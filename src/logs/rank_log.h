// Byte-exact per-rank log files: <dir>/rank-<N>.log receives every byte rank N wrote, stdout and stderr
// interleaved in arrival order, exactly as received - '\r', NULs, escapes and broken UTF-8 included.
// Nothing is filtered, split or prefixed here (that is the terminal's business).
//
// A job may have far more ranks than the head may hold open files (1,024 ranks under Debian's default soft
// limit of 1,024 descriptors), so the set holds at most `max_open` files open at once: every rank's file is
// created (empty) by open(), and a rank's sink is reopened for appending when it writes and closed again,
// least recently used first, when another rank needs the slot. Bytes are never dropped or reordered by that:
// a closed sink was flushed first. The opener makes the sinks: FileSinks by default, posix ones from the head
// (private modes, O_NOFOLLOW: launch/rank_log_files.h).
#pragma once

#include <filesystem>
#include <functional>
#include <list>
#include <memory>
#include <string_view>
#include <vector>

#include "logs/byte_sink.h"
#include "util/result.h"

namespace muster::logs {

class RankLogSet {
 public:
  // Opens one rank's file: with `create`, a new empty file (an old one is truncated); without, the same file
  // again for appending.
  using SinkOpener =
      std::function<Result<std::unique_ptr<ByteSink>>(const std::filesystem::path&, bool create)>;
  static constexpr int kDefaultMaxOpen = 64;

  // Creates `dir` (and parents) if needed and rank-0.log .. rank-<rank_count-1>.log in it.
  static Result<RankLogSet> open(const std::filesystem::path& dir, int rank_count, SinkOpener opener = {},
                                 int max_open = kDefaultMaxOpen);

  Result<void> write(int rank, std::string_view bytes);
  Result<void> flush();  // every open sink; the first error wins

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path path(int rank) const;
  int rank_count() const { return rank_count_; }
  int open_count() const { return static_cast<int>(recent_.size()); }

 private:
  // The rank's open sink, opening it (and closing the least recently written one) when needed; a failure to write
  // out the closed one's bytes lands in `evicted`.
  Result<ByteSink*> sink_for(int rank, Result<void>& evicted);

  std::filesystem::path dir_;
  int rank_count_ = 0;
  int max_open_ = kDefaultMaxOpen;
  SinkOpener opener_;
  std::vector<std::unique_ptr<ByteSink>> sinks_;     // per rank; null while closed
  std::list<int> recent_;                            // open ranks, most recently written first
  std::vector<std::list<int>::iterator> position_;   // per rank: its place in recent_ while open
};

}  // namespace muster::logs
