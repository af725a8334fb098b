#include "jobs/job_logs.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include <fmt/format.h>

#include "logs/rank_filter.h"
#include "posix/clock.h"
#include "posix/dir_watch.h"
#include "posix/fd.h"
#include "posix/file.h"
#include "posix/poller.h"

namespace muster::jobs {
namespace {

constexpr int kStdout = 1;
constexpr int kFollowIntervalMs = 200;  // without inotify events (NFS), or to notice the job's end
constexpr size_t kReadBytes = 256 * 1024;

// One rank's log file, read from where the previous read ended.
class LogReader {
 public:
  LogReader(RankSource source, std::string path) : source_(std::move(source)), path_(std::move(path)) {}

  // Whatever was added since the last call ("" when nothing, or when the file does not exist yet).
  Result<std::string> read_new() {
    if (!fd_.valid()) {
      if (!posix::path_exists(path_)) return std::string();
      auto fd = posix::open_read(path_, true);
      if (!fd) return fd.error();
      fd_ = std::move(*fd);
    }
    std::string out;
    std::string buffer(kReadBytes, '\0');
    while (true) {
      auto got = posix::read_full_at(fd_.get(), buffer, offset_);
      if (!got) return got.error();
      out.append(buffer.data(), *got);
      offset_ += *got;
      if (*got < buffer.size()) return out;
    }
  }
  // Prefixed complete lines of `bytes` (the rest held for later); `final`: the rest too, as a line.
  std::string lines(std::string_view bytes, bool final) {
    partial_.append(bytes);
    std::string out;
    size_t start = 0;
    for (size_t newline = partial_.find('\n'); newline != std::string::npos; newline = partial_.find('\n', start)) {
      out += fmt::format("[{}:{}] ", source_.node, source_.rank);
      out.append(partial_, start, newline + 1 - start);
      start = newline + 1;
    }
    partial_.erase(0, start);
    if (final && !partial_.empty()) {
      out += fmt::format("[{}:{}] {}\n", source_.node, source_.rank, partial_);
      partial_.clear();
    }
    return out;
  }

 private:
  RankSource source_;
  std::string path_;
  posix::Fd fd_;
  uint64_t offset_ = 0;
  std::string partial_;
};

std::optional<int> parse_index(const std::string& text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The layout of a record written before layouts were recorded: every rank on an unnamed node.
std::vector<head::NodeRanks> layout_of(const head::JobRecord& job) {
  if (!job.layout.empty()) return job.layout;
  return {head::NodeRanks{"?", 0, job.ranks}};
}

Result<void> print(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (auto written = posix::write_all(kStdout, bytes); !written) {
    return make_error(ErrorKind::io, "cannot write to stdout: {}", written.error().message);
  }
  return {};
}

// One pass over every reader: what each has new. Raw for a single rank, prefixed lines otherwise.
Result<void> print_new(std::vector<LogReader>& readers, bool raw, bool final) {
  for (auto& reader : readers) {
    auto bytes = reader.read_new();
    if (!bytes) return bytes.error();
    if (auto printed = print(raw ? *bytes : reader.lines(*bytes, final)); !printed) return printed;
  }
  return {};
}

bool job_running(const head::JobRecord& job) {
  auto now = head::find_job(job.run_dir, true);  // the record as the head last wrote it
  return head::job_state(now ? *now : job) == head::JobState::running;
}

}  // namespace

Result<std::vector<RankSource>> select_ranks(const head::JobRecord& job, const std::string& ranks,
                                             const std::string& node) {
  auto filter = logs::RankFilter::parse(ranks);
  if (!filter) return filter.error();
  if (auto fits = filter->check_world_size(job.ranks); !fits) return fits.error();
  auto layout = layout_of(job);
  std::optional<size_t> only;
  if (!node.empty()) {
    for (size_t k = 0; k < layout.size(); ++k) {
      if (layout[k].name == node) only = k;
    }
    auto index = parse_index(node);
    if (!only && index && *index >= 0 && static_cast<size_t>(*index) < layout.size()) only = static_cast<size_t>(*index);
    if (!only) {
      std::string names;
      for (const auto& entry : layout) names += (names.empty() ? "" : ", ") + entry.name;
      return make_error(ErrorKind::usage, "--node {}: job {} has no such node (its nodes: {}; or give a node rank, "
                                          "0-{})", node, job.job_id, names, layout.size() - 1);
    }
  }
  std::vector<RankSource> selected;
  for (size_t k = 0; k < layout.size(); ++k) {
    if (only && *only != k) continue;
    for (int rank = layout[k].first_rank; rank < layout[k].first_rank + layout[k].count; ++rank) {
      if (filter->contains(rank)) selected.push_back({rank, layout[k].name});
    }
  }
  if (selected.empty()) {
    return make_error(ErrorKind::usage, "job {}: no rank is both in --rank {} and on node {}", job.job_id, ranks, node);
  }
  return selected;
}

Result<int> run_logs(const LogsOptions& options) {
  auto job = head::find_job(options.which, true);
  if (!job) return job.error();
  auto ranks = select_ranks(*job, options.ranks, options.node);
  if (!ranks) return ranks.error();
  std::vector<LogReader> readers;
  for (const auto& source : *ranks) {
    readers.emplace_back(source, fmt::format("{}/rank-{}.log", job->run_dir, source.rank));
  }
  bool raw = readers.size() == 1;
  if (!options.follow) {
    if (auto printed = print_new(readers, raw, true); !printed) return printed.error();
    return 0;
  }
  auto poller = posix::Poller::create();
  if (!poller) return poller.error();
  auto watch = posix::DirWatch::open(job->run_dir);  // a line is printed as it reaches its file, as tail -F does
  if (watch) (void)poller->add(watch->fd(), posix::poll_readable, 0);
  int64_t next_check = 0;
  while (true) {
    bool running = true;
    if (posix::monotonic_ms() >= next_check) {  // at most once an interval, however fast the ranks write
      running = job_running(*job);  // before reading: what an ended job wrote is all there by then
      next_check = posix::monotonic_ms() + kFollowIntervalMs;
    }
    if (auto printed = print_new(readers, raw, !running); !printed) return printed.error();
    if (!running) return 0;
    if (auto waited = poller->wait(posix::timeout_until(next_check)); !waited) return waited.error();
    if (watch) watch->drain();
  }
}

}  // namespace muster::jobs
