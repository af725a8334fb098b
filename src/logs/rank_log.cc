#include "logs/rank_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "logs/file_sink.h"

namespace muster::logs {

Result<RankLogSet> RankLogSet::open(const std::filesystem::path& dir, int rank_count, SinkOpener opener,
                                    int max_open) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::io, "cannot create log directory {}: {}", dir.string(), ec.message());
  if (!opener) {
    opener = [](const std::filesystem::path& path, bool create) -> Result<std::unique_ptr<ByteSink>> {
      auto sink = FileSink::open(path, create ? FileSink::Mode::create : FileSink::Mode::append);
      if (!sink) return sink.error();
      return std::unique_ptr<ByteSink>(std::move(*sink));
    };
  }
  RankLogSet set;
  set.dir_ = dir;
  set.rank_count_ = rank_count;
  set.max_open_ = std::max(1, max_open);
  set.opener_ = std::move(opener);
  set.sinks_.resize(static_cast<size_t>(rank_count));
  set.position_.resize(static_cast<size_t>(rank_count));
  for (int rank = 0; rank < rank_count; ++rank) {
    auto sink = set.opener_(set.path(rank), true);  // every rank has its file, even one that never writes
    if (!sink) return sink.error();
    if (auto flushed = (*sink)->flush(); !flushed) return flushed.error();
  }
  return set;
}

std::filesystem::path RankLogSet::path(int rank) const {
  return dir_ / fmt::format("rank-{}.log", rank);
}

Result<ByteSink*> RankLogSet::sink_for(int rank, Result<void>& evicted) {
  auto index = static_cast<size_t>(rank);
  if (sinks_[index]) {
    recent_.splice(recent_.begin(), recent_, position_[index]);
    return sinks_[index].get();
  }
  if (static_cast<int>(recent_.size()) >= max_open_) {
    int oldest = recent_.back();
    recent_.pop_back();
    auto closing = std::move(sinks_[static_cast<size_t>(oldest)]);
    evicted = closing->flush();  // reported, but this rank's bytes are still written
  }
  auto sink = opener_(path(rank), false);
  if (!sink) return sink.error();
  sinks_[index] = std::move(*sink);
  recent_.push_front(rank);
  position_[index] = recent_.begin();
  return sinks_[index].get();
}

Result<void> RankLogSet::write(int rank, std::string_view bytes) {
  if (rank < 0 || rank >= rank_count_) {
    return make_error(ErrorKind::protocol, "output for rank {}, but the job has ranks 0-{}", rank, rank_count_ - 1);
  }
  if (bytes.empty()) return {};
  Result<void> evicted;
  auto sink = sink_for(rank, evicted);
  if (!sink) return sink.error();
  auto written = (*sink)->write(bytes);
  return !evicted ? evicted : written;
}

Result<void> RankLogSet::flush() {
  Result<void> first;
  for (int rank : recent_) {
    auto result = sinks_[static_cast<size_t>(rank)]->flush();
    if (!result && first) first = result;
  }
  return first;
}

}  // namespace muster::logs
