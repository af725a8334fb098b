// StepSources: where the agent learns about its ranks' training steps (docs/design/telemetry.md, "Step sources"),
// best first: the Python hook's step ring ($MUSTER_STEPS_PREFIX<pid>, telemetry/step_ring.h), the step marker
// (lines written to the FIFO $MUSTER_STEP_FILE, watched in the agent's loop), `--step-pattern` lines and tqdm's
// counter in the worker's output (fed to it as the worker set reads the pipes). Each interval it reduces what
// came in to every rank's step figures (telemetry/step_window.h), from the best source that rank has.
// A worker may hold several ranks (a per-node launcher): the ring's header and the marker's "rank=" say which.
// It owns the files it makes for a worker (its ring files and FIFO) and removes them when the worker is forgotten.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "posix/event_loop.h"
#include "posix/fd.h"
#include "protocol/messages.h"
#include "telemetry/samples.h"
#include "telemetry/step_lines.h"
#include "telemetry/step_window.h"

namespace muster::agent {

class StepSources {
 public:
  explicit StepSources(posix::EventLoop& loop) : loop_(loop) {}
  ~StepSources();
  StepSources(const StepSources&) = delete;
  StepSources& operator=(const StepSources&) = delete;

  void configure(std::shared_ptr<const std::regex> pattern, bool tqdm);
  // Before worker `worker` starts: its ring prefix and marker FIFO under `dir` (made private), their variables
  // added to `env` where it does not set them; files an earlier attempt's worker of the same id left are removed.
  // An error leaves the worker without these sources (the caller reports it once).
  Result<void> prepare(const std::string& dir, uint32_t worker, std::vector<std::string>& env);
  void output(uint32_t worker, protocol::Stream stream, std::string_view bytes);
  void forget(uint32_t worker);

  struct RankSteps {
    telemetry::RankSample sample;  // rank, source, the step figures
    int pid = 0;                   // the process that stepped (the hook's), 0: unknown
    uint32_t worker = 0;
    bool news = false;             // the first sample that says its steps are counted: worth sending when it ended
  };
  // Whether worker `worker` ever stepped or has steps not collected yet (one glob for its ring files): a worker
  // that never did needs no sample of its own when it ends.
  bool has_steps(uint32_t worker) const;
  // Every rank's steps since the last call, for an interval of `interval_ms`. A rank whose steps are counted has
  // telemetry::kRankStepsCounted in its flags, from the moment its hook made the ring (before its first step).
  std::vector<RankSteps> collect(int64_t now_ms, uint32_t interval_ms);

 private:
  struct Ring {
    uint64_t read = 0;  // the last step index read
  };
  struct PerRank {
    telemetry::StepWindow hook, marker;
    uint32_t pattern = 0, tqdm = 0;
    telemetry::StepSource best = telemetry::StepSource::none;
    bool counted = false;  // a source counts its steps (the hook's ring exists), whether or not it stepped yet
    bool counted_said = false;
    uint64_t total = 0;
    int pid = 0;
  };
  struct Worker {
    std::string parent, name;  // the worker's own directory: parent/name (its ring files and FIFO, nothing else)
    std::string prefix;        // ring files: prefix + pid
    std::string fifo;
    posix::Fd marker;
    posix::EventLoop::FdWatch watch;
    std::string partial;
    std::map<std::string, Ring> rings;
    std::unique_ptr<telemetry::OutputSteps> out, err;
    std::map<uint32_t, PerRank> ranks;
  };
  void read_marker(uint32_t id);
  void read_rings(uint32_t id, Worker& worker);
  void remove_files(const Worker& worker);

  posix::EventLoop& loop_;
  std::shared_ptr<const std::regex> pattern_;
  bool tqdm_ = false;
  std::map<uint32_t, Worker> workers_;
};

}  // namespace muster::agent
