#include "logs/rank_log.h"

#include <fmt/format.h>

#include <system_error>

#include "logs/file_sink.h"

namespace muster::logs {

Result<RankLogSet> RankLogSet::open(const std::filesystem::path& dir, int rank_count, SinkOpener opener) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::io, "cannot create log directory {}: {}", dir.string(), ec.message());
  if (!opener) {
    opener = [](const std::filesystem::path& path) -> Result<std::unique_ptr<ByteSink>> {
      auto sink = FileSink::open(path);
      if (!sink) return sink.error();
      return std::unique_ptr<ByteSink>(std::move(*sink));
    };
  }
  RankLogSet set;
  set.dir_ = dir;
  for (int rank = 0; rank < rank_count; ++rank) {
    auto sink = opener(set.path(rank));
    if (!sink) return sink.error();
    set.sinks_.push_back(std::move(*sink));
  }
  return set;
}

std::filesystem::path RankLogSet::path(int rank) const {
  return dir_ / fmt::format("rank-{}.log", rank);
}

Result<void> RankLogSet::write(int rank, std::string_view bytes) {
  if (rank < 0 || rank >= rank_count()) {
    return make_error(ErrorKind::protocol, "output for rank {}, but the job has ranks 0-{}", rank,
                      rank_count() - 1);
  }
  return sinks_[static_cast<size_t>(rank)]->write(bytes);
}

Result<void> RankLogSet::flush() {
  Result<void> first;
  for (auto& sink : sinks_) {
    auto result = sink->flush();
    if (!result && first) first = result;
  }
  return first;
}

}  // namespace muster::logs
