#include "agent/step_sources.h"

#include <filesystem>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/dir.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "telemetry/step_ring.h"

namespace muster::agent {
namespace {

using telemetry::StepSource;

constexpr size_t kMaxMarkerLine = 512;
// A worker's ring files read per sample: its processes that stepped (a worker's own files: a worker that makes
// thousands of them slows only its own figures). A ring is 12 KiB; a larger file is not one.
constexpr size_t kMaxRings = 64;
constexpr size_t kMaxRingBytes = 64u << 10;

void set_if_unset(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  if (!posix::find_variable(env, name)) env.push_back(name + "=" + value);
}

}  // namespace

StepSources::~StepSources() {
  for (auto& [id, worker] : workers_) {
    worker.watch.reset();
    remove_files(worker);
  }
}

void StepSources::configure(std::shared_ptr<const std::regex> pattern, bool tqdm) {
  pattern_ = std::move(pattern);
  tqdm_ = tqdm;
  for (auto& [id, worker] : workers_) {
    worker.out = std::make_unique<telemetry::OutputSteps>(pattern_, tqdm_);
    worker.err = std::make_unique<telemetry::OutputSteps>(pattern_, tqdm_);
  }
}

Result<void> StepSources::prepare(const std::string& dir, uint32_t id, std::vector<std::string>& env) {
  forget(id);
  // A directory per worker: its ring files are found by a glob of its own directory, never of every worker's
  // (1,000 workers on a node would make each second's globs scan a million names).
  std::string steps = dir + "/steps";
  if (auto made = posix::ensure_private_dir(steps); !made) return made.error();
  Worker& worker = workers_[id];
  worker.parent = steps;
  worker.name = std::to_string(id);
  remove_files(worker);  // an earlier attempt's
  std::string own = steps + "/" + worker.name;
  if (auto made = posix::ensure_private_dir(own); !made) return made.error();
  worker.prefix = own + "/ring-";
  worker.fifo = own + "/fifo";
  worker.out = std::make_unique<telemetry::OutputSteps>(pattern_, tqdm_);
  worker.err = std::make_unique<telemetry::OutputSteps>(pattern_, tqdm_);
  set_if_unset(env, "MUSTER_STEPS_PREFIX", worker.prefix);
  auto fifo = posix::make_fifo_reader(worker.fifo, 0600);
  if (!fifo) return fifo.error();
  worker.marker = std::move(*fifo);
  auto watch = loop_.watch(worker.marker.get(), posix::poll_readable, [this, id](uint32_t) { read_marker(id); });
  if (!watch) return watch.error();
  worker.watch = std::move(*watch);
  set_if_unset(env, "MUSTER_STEP_FILE", worker.fifo);
  return {};
}

void StepSources::remove_files(const Worker& worker) {
  if (worker.parent.empty()) return;
  if (auto parent = posix::Dir::open(worker.parent)) (void)parent->remove_tree(worker.name);
}

void StepSources::forget(uint32_t id) {
  auto it = workers_.find(id);
  if (it == workers_.end()) return;
  it->second.watch.reset();
  remove_files(it->second);
  workers_.erase(it);
}

void StepSources::output(uint32_t id, protocol::Stream stream, std::string_view bytes) {
  if (!pattern_ && !tqdm_) return;
  auto it = workers_.find(id);
  if (it == workers_.end() || !it->second.out) return;
  (stream == protocol::Stream::out ? *it->second.out : *it->second.err).feed(bytes);
}

// Marker lines: "step [rank=R] [wait=S]", each a step of that rank (default: the worker's) ending now.
void StepSources::read_marker(uint32_t id) {
  auto it = workers_.find(id);
  if (it == workers_.end()) return;
  Worker& worker = it->second;
  int64_t now = posix::monotonic_ms();
  char chunk[4096];
  for (int round = 0; round < 16; ++round) {
    auto got = posix::read_some(worker.marker.get(), chunk);
    if (!got || got->eof || got->would_block) return;
    worker.partial.append(chunk, got->bytes);
    size_t start = 0, end;
    while ((end = worker.partial.find('\n', start)) != std::string::npos) {
      auto marker = telemetry::parse_marker_line(std::string_view(worker.partial).substr(start, end - start));
      start = end + 1;
      if (!marker) continue;
      PerRank& rank = worker.ranks[marker->rank.value_or(id)];
      std::optional<uint32_t> wait;
      if (marker->wait_s) wait = static_cast<uint32_t>(*marker->wait_s * 1e6);
      rank.marker.mark(now, wait);
      ++rank.total;
      if (rank.best == StepSource::none || rank.best > StepSource::marker) rank.best = StepSource::marker;
    }
    worker.partial.erase(0, start);
    if (worker.partial.size() > kMaxMarkerLine) worker.partial.clear();  // not a marker line
  }
}

// The files are the workers' (they could be anything: a FIFO, a link, a huge file): read as regular files only,
// never through a link, never blocking, bounded.
void StepSources::read_rings(uint32_t id, Worker& worker) {
  auto paths = posix::glob_paths(worker.prefix + "*");
  if (paths.size() > kMaxRings) paths.resize(kMaxRings);
  for (const auto& path : paths) {
    auto bytes = posix::read_regular_file(path, false, kMaxRingBytes);
    if (!bytes) continue;
    Ring& ring = worker.rings[path];
    auto read = telemetry::read_step_ring(*bytes, ring.read);
    if (!read.valid) continue;
    uint32_t rank_id = read.rank >= 0 ? static_cast<uint32_t>(read.rank) : id;
    PerRank& rank = worker.ranks[rank_id];
    rank.counted = true;
    for (const auto& record : read.records) {
      if (record.step_us == 0) {  // the first step: counted, no time
        rank.hook.count(1);
        continue;
      }
      rank.hook.step(record.step_us, (read.flags & telemetry::kStepRingWaitMeasured) ? record.wait_us : telemetry::kNone);
    }
    if (read.count > ring.read) {
      // Steps the ring no longer held still count.
      uint64_t missed = read.count - ring.read - read.records.size();
      if (missed > 0) rank.hook.count(static_cast<uint32_t>(missed));
      ring.read = read.count;
      rank.best = StepSource::hook;
      rank.pid = static_cast<int>(read.pid);
    }
    if (rank.best == StepSource::hook) rank.total = read.count;
  }
}

bool StepSources::has_steps(uint32_t id) const {
  auto it = workers_.find(id);
  if (it == workers_.end()) return false;
  const Worker& worker = it->second;
  if (!worker.ranks.empty() || !worker.rings.empty()) return true;
  if (worker.out && (worker.out->pending() || worker.err->pending())) return true;
  return !worker.prefix.empty() && !posix::glob_paths(worker.prefix + "*").empty();
}

std::vector<StepSources::RankSteps> StepSources::collect(int64_t now_ms, uint32_t interval_ms) {
  (void)now_ms;
  std::vector<RankSteps> out;
  for (auto& [id, worker] : workers_) {
    read_rings(id, worker);
    if (worker.out) {
      uint32_t pattern = worker.out->take_pattern_steps() + worker.err->take_pattern_steps();
      uint32_t tqdm = worker.out->take_tqdm_steps() + worker.err->take_tqdm_steps();
      if (pattern > 0 || tqdm > 0) {
        PerRank& rank = worker.ranks[id];
        rank.pattern += pattern;
        rank.tqdm += tqdm;
        StepSource source = pattern > 0 ? StepSource::pattern : StepSource::tqdm;
        if (rank.best == StepSource::none || rank.best > source) rank.best = source;
        if (rank.best == source) rank.total += pattern > 0 ? pattern : tqdm;
      }
    }
    for (auto& [rank_id, rank] : worker.ranks) {
      RankSteps steps;
      steps.worker = id;
      steps.pid = rank.pid;
      steps.sample.rank = rank_id;
      steps.sample.source = static_cast<uint32_t>(rank.best);
      telemetry::StepWindow counted;
      telemetry::StepWindow* window = &counted;
      switch (rank.best) {
        case StepSource::hook: window = &rank.hook; break;
        case StepSource::marker: window = &rank.marker; break;
        case StepSource::pattern: counted.count(rank.pattern); break;
        case StepSource::tqdm: counted.count(rank.tqdm); break;
        case StepSource::none: break;
      }
      window->close(interval_ms, steps.sample);
      steps.sample.total_steps = static_cast<uint32_t>(rank.total);
      if (rank.counted || rank.best != StepSource::none) {
        steps.sample.flags |= telemetry::kRankStepsCounted;
        steps.news = !rank.counted_said;
        rank.counted_said = true;
      }
      // What the other sources gathered is dropped: only the best one speaks for the rank.
      telemetry::RankSample discard;
      if (window != &rank.hook) rank.hook.close(interval_ms, discard);
      if (window != &rank.marker) rank.marker.close(interval_ms, discard);
      rank.pattern = rank.tqdm = 0;
      out.push_back(steps);
    }
  }
  return out;
}

}  // namespace muster::agent
