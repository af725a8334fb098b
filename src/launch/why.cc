#include "launch/why.h"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/hostlist.h"
#include "cluster/node_set.h"
#include "diagnosis/matcher.h"
#include "launch/flight_dumps.h"
#include "head/job_registry.h"
#include "launch/failure_report.h"
#include "launch/run_report.h"
#include "posix/file.h"

namespace muster::launch {
namespace {

}  // namespace

Result<std::string> resolve_run_dir(const std::string& which) {
  if (which.empty()) {
    auto records = head::list_job_records();
    if (!records.empty()) return records.front().run_dir;
    return make_error(ErrorKind::usage, "no muster job recorded for you on this machine: name a run directory");
  }
  if (posix::path_exists(which + "/manifest.json") || posix::path_exists(which + "/job.json")) return which;
  auto record = head::find_job(which);
  if (!record) return record.error();
  return record->run_dir;
}

namespace {

RankPhase phase_named(const std::string& name) {
  for (auto phase : {RankPhase::pending, RankPhase::running, RankPhase::exited, RankPhase::signaled,
                     RankPhase::failed_to_start, RankPhase::lost}) {
    if (name == rank_phase_name(phase)) return phase;
  }
  return RankPhase::pending;
}

// The last attempt's evidence, as manifest.json recorded it.
// Which node each rank of the last attempt ran on: its layout (a restart may have moved ranks to other nodes),
// else the job's nodes. `by_host`: as the job named them (else their host names).
std::map<int, std::string> nodes_of_ranks(const nlohmann::json& manifest, bool by_host) {
  std::map<int, std::string> node_of;
  const nlohmann::json attempts = manifest.value("attempts", nlohmann::json::array());
  if (!attempts.empty() && attempts.back().contains("layout")) {
    for (const auto& node : attempts.back()["layout"]) {
      int first = node.value("first_rank", 0);
      for (int i = 0; i < node.value("count", 0); ++i) node_of[first + i] = node.value("node", std::string("?"));
    }
    return node_of;
  }
  for (const auto& node : manifest.value("nodes", nlohmann::json::array())) {
    for (const auto& rank : node.value("ranks", nlohmann::json::array())) {
      node_of[rank.value("rank", 0)] = by_host ? node.value("host", node.value("hostname", std::string("?")))
                                               : node.value("hostname", node.value("host", std::string("?")));
    }
  }
  return node_of;
}

// With several attempts: one line each (its nodes and what was decided at its end), and the nodes left out.
std::string format_attempts(const nlohmann::json& manifest) {
  const nlohmann::json attempts = manifest.value("attempts", nlohmann::json::array());
  if (attempts.size() < 2) return "";
  std::string text = fmt::format("{} attempts:\n", attempts.size());
  for (const auto& attempt : attempts) {
    std::vector<std::string> nodes = attempt.value("nodes", std::vector<std::string>{});
    std::string decision = attempt.value("decision", std::string());
    text += fmt::format("  attempt {} on {}: {}\n", attempt.value("attempt", 0) + 1, cluster::compress_hostlist(nodes),
                        decision.empty() ? fmt::format("exit {}", attempt.value("exit_code", -1)) : decision);
  }
  auto excluded = manifest.find("excluded");
  if (excluded == manifest.end() || !excluded->is_object()) return text;
  for (auto it = excluded->begin(); it != excluded->end(); ++it) {
    text += fmt::format("  {} left out: {}\n", it.key(), it->value("reason", std::string()));
  }
  return text;
}

FailureEvidence evidence_of(const nlohmann::json& manifest, const std::string& run_dir) {
  FailureEvidence evidence;
  evidence.run_dir = run_dir;
  std::map<int, std::string> node_of = nodes_of_ranks(manifest, false);
  const nlohmann::json attempts = manifest.value("attempts", nlohmann::json::array());
  if (attempts.empty()) return evidence;
  const nlohmann::json& attempt = attempts.back();
  int root = attempt.value("root_cause", -1);
  const nlohmann::json ranks = attempt.value("ranks", nlohmann::json::object());
  for (const auto& [key, rank] : ranks.items()) {
    RankEnd end;
    end.rank = std::stoi(key);
    end.node = node_of[end.rank];
    end.root = end.rank == root;
    end.status.phase = phase_named(rank.value("state", ""));
    end.status.code = rank.value("code", 0);
    end.status.detail = rank.value("detail", "");
    end.status.by_muster = rank.value("stopped_by_muster", false);
    end.status.ended_ms = rank.value("ended_ms", int64_t{0});
    evidence.ends.push_back(std::move(end));
  }
  const nlohmann::json all_notes = attempt.value("notes", nlohmann::json::object());
  for (const auto& [key, notes] : all_notes.items()) {
    int rank = std::stoi(key);
    for (const auto& [name, text] : notes.items()) {
      std::string value = text.get<std::string>();
      if (name == "error-file") {
        auto file = posix::read_text_file(run_dir + "/" + value);
        value = file ? *file : "";
      }
      evidence.notes[rank][name] = value;
    }
  }
  return evidence;
}

std::string format_hangs(const nlohmann::json& manifest) {
  std::string text;
  const nlohmann::json hangs = manifest.value("hangs", nlohmann::json::array());
  for (const auto& hang : hangs) {
    text += fmt::format("stalled: no rank made progress for {} s; every rank's stack: {}\n",
                        hang.value("silent_ms", int64_t{0}) / 1000, hang.value("stacks_file", std::string()));
    const nlohmann::json groups = hang.value("groups", nlohmann::json::array());
    for (const auto& group : groups) {
      auto ranks = group.value("ranks", std::vector<int>{});
      auto nodes = group.value("nodes", std::vector<std::string>{});
      std::string who = ranks.size() == 1 ? fmt::format("rank {}", cluster::fold_numbers(ranks))
                                          : fmt::format("ranks {} ({})", cluster::fold_numbers(ranks), ranks.size());
      if (!nodes.empty()) who += " on " + cluster::counted_nodes(nodes);
      text += fmt::format("  {}: {}{}\n", who, group.value("where", std::string()),
                          group.value("odd", false) ? "   <- the odd one out" : "");
    }
  }
  return text;
}

}  // namespace

Result<std::string> explain_run(const WhyOptions& options, const diagnosis::Catalogue& catalogue) {
  auto run_dir = resolve_run_dir(options.which);
  if (!run_dir) return run_dir.error();
  auto text = posix::read_text_file(*run_dir + "/manifest.json");
  if (!text) {
    return make_error(ErrorKind::usage, "{} has no manifest.json: the job is still running or its head died (muster "
                                        "stack reaches a running job)", *run_dir);
  }
  auto manifest = nlohmann::json::parse(*text, nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object()) {
    return make_error(ErrorKind::parse, "{}/manifest.json is not JSON", *run_dir);
  }
  nlohmann::json diagnosis = manifest.value("diagnosis", nlohmann::json::object());
  std::string report;
  if (options.rematch) {
    auto evidence = evidence_of(manifest, *run_dir);
    auto fresh = diagnose_failure(nullptr, catalogue, evidence);
    diagnosis = diagnosis::diagnosis_json(fresh);
    report = diagnosis::format_diagnosis(fresh);
  } else {
    report = diagnosis.value("report", std::string());
  }
  if (options.json) return diagnosis.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  int exit_code = manifest.value("exit_code", -1);
  std::string head = fmt::format("job {} ({}): exit {}\n", manifest.value("job_id", std::string("?")), *run_dir,
                                 exit_code);
  std::string hangs = format_hangs(manifest);
  if (report.empty() && hangs.empty()) {
    report = exit_code == 0 ? "every rank finished.\n"
                            : "no catalogue entry explains this failure; the rank logs are in " + *run_dir + "\n";
  }
  // The nodes by the names the job was given (as the launch's report names them), not their hostnames.
  std::map<int, std::string> node_of = nodes_of_ranks(manifest, true);
  return head + format_attempts(manifest) + hangs + format_stragglers(manifest) + report +
         format_flight_dumps(evidence_of(manifest, *run_dir).notes, [&](int rank) { return node_of[rank]; }, *run_dir);
}

}  // namespace muster::launch
