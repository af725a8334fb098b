#include "launch/failure_report.h"

#include <csignal>

#include <fmt/format.h>

#include "doctor/examine.h"
#include "head/node_runs.h"
#include "posix/file.h"
#include "util/text.h"

namespace muster::launch {
namespace {

constexpr size_t kLogTailBytes = 64 * 1024;
constexpr int kFactsTimeoutMs = 10'000;  // a node that cannot answer in this is reported without its facts

diagnosis::RankFailure::How how_of(RankPhase phase) {
  switch (phase) {
    case RankPhase::signaled: return diagnosis::RankFailure::How::signaled;
    case RankPhase::failed_to_start: return diagnosis::RankFailure::How::failed_to_start;
    case RankPhase::lost: return diagnosis::RankFailure::How::lost;
    default: return diagnosis::RankFailure::How::exited;
  }
}

bool ended_badly(const RankStatus& status) {
  switch (status.phase) {
    case RankPhase::exited: return status.code != 0;
    case RankPhase::signaled: case RankPhase::failed_to_start: case RankPhase::lost: return true;
    default: return false;
  }
}

// muster's own teardown: SIGTERM, SIGKILL (after the grace) or SIGINT sent by muster.
bool stopped_by_muster(const RankStatus& status) {
  if (!status.by_muster) return false;
  return status.phase == RankPhase::signaled &&
         (status.code == SIGTERM || status.code == SIGKILL || status.code == SIGINT);
}

std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> probe_modules(
    head::AgentPool& pool, const std::vector<std::string>& modules, const std::string& python,
    const std::vector<std::string>& env) {
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> found;
  constexpr const char* kProbe =
      "import importlib.util, sys\n"
      "try:\n    print('yes' if importlib.util.find_spec(sys.argv[1]) else 'no')\n"
      "except Exception:\n    print('no')\n";
  for (const auto& module : modules) {
    auto runs = head::run_on_nodes(pool, [&](size_t) {
      return head::NodeCommand{{python, "-c", kProbe, module}, env};
    }, kFactsTimeoutMs);
    if (!runs) continue;
    for (size_t node = 0; node < runs->size(); ++node) {
      if (!(*runs)[node].ran) continue;
      bool yes = trim((*runs)[node].out) == "yes";
      (yes ? found[module].first : found[module].second).push_back(pool.name(node));
    }
  }
  return found;
}

}  // namespace

std::vector<RankEnd> rank_ends(const Gang& gang, const cluster::RankPlan& plan) {
  std::vector<RankEnd> ends;
  for (const auto& node : plan.nodes) {
    for (const auto& rank : node.ranks) {
      ends.push_back({rank.global_rank, node.host.name, gang.status(rank.global_rank),
                      gang.root_cause() == rank.global_rank});
    }
  }
  return ends;
}

std::vector<diagnosis::RankFailure> failed_ranks(const FailureEvidence& evidence) {
  std::vector<diagnosis::RankFailure> failures;
  for (const auto& end : evidence.ends) {
    const RankStatus& status = end.status;
    if (!ended_badly(status) || (!end.root && stopped_by_muster(status))) continue;
    diagnosis::RankFailure failure;
    failure.rank = end.rank;
    failure.node = end.node;
    failure.how = how_of(status.phase);
    failure.code = status.code;
    failure.root = end.root;
    failure.ended_ms = status.ended_ms;
    auto notes = evidence.notes.find(end.rank);
    if (notes != evidence.notes.end()) failure.notes = notes->second;
    if (auto error = failure.notes.find("error-file"); error != failure.notes.end()) failure.error_file = error->second;
    if (status.phase == RankPhase::lost) {
      std::string_view why = status.detail;
      if (size_t colon = why.find(" lost: "); colon != std::string_view::npos) why.remove_prefix(colon + 7);
      failure.notes["lost"] = std::string(why.substr(0, why.find('\n')));
    }
    auto tail = posix::read_file_tail(fmt::format("{}/rank-{}.log", evidence.run_dir, end.rank), kLogTailBytes);
    if (tail) {
      for (auto line : split_lines(*tail)) failure.lines.emplace_back(line);
    }
    if (status.phase == RankPhase::failed_to_start) failure.lines.push_back(status.detail);
    failures.push_back(std::move(failure));
  }
  return failures;
}

diagnosis::Diagnosis diagnose_failure(head::AgentPool* pool, const diagnosis::Catalogue& catalogue,
                                      const FailureEvidence& evidence) {
  auto failures = failed_ranks(evidence);
  diagnosis::ClusterFacts facts;
  facts.python = evidence.python;
  facts.run_dir = evidence.run_dir;
  auto wanted = diagnosis::evidence_wanted(catalogue, failures);
  if (!pool) return diagnosis::diagnose(catalogue, failures, facts);
  std::vector<std::string> names;
  for (size_t node = 0; node < pool->size(); ++node) names.push_back(pool->name(node));
  if (wanted.facts) {
    doctor::ExamineOptions options;
    options.python = evidence.python;
    options.ssh_matrix = doctor::SshMatrixMode::off;
    options.shared_fs = false;
    options.timeout_ms = kFactsTimeoutMs;
    auto findings = doctor::examine_findings(*pool, names, options);
    if (findings) {
      facts.gathered = true;
      facts.findings = std::move(*findings);
    }
  }
  if (!wanted.modules.empty()) facts.modules = probe_modules(*pool, wanted.modules, evidence.python, evidence.env);
  return diagnosis::diagnose(catalogue, failures, facts);
}

}  // namespace muster::launch
