#include "launch/fault_judge.h"

#include <algorithm>
#include <regex>

#include <fmt/core.h>

namespace muster::launch {
namespace {

// A traceback's last line: a dotted exception name, then ": message" or nothing.
const std::regex& exception_line() {
  static const std::regex pattern(R"(^([A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Interrupt|Exit|Failure))(: .*)?$)");
  return pattern;
}

}  // namespace

Fault classify(const diagnosis::Diagnosis& diagnosis, const std::vector<diagnosis::RankFailure>& failures,
               const std::function<std::optional<size_t>(const std::string&)>& host_of);

std::string last_exception(const diagnosis::RankFailure& failure) {
  std::vector<std::string> lines = failure.lines;
  if (!failure.error_file.empty()) {
    for (auto& line : diagnosis::error_file_lines(failure.error_file)) lines.push_back(line);
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string line = *it;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (std::regex_match(line, exception_line())) return line;
  }
  return "";
}

Fault judge_fault(const std::vector<diagnosis::RankFailure>& failures, const diagnosis::Diagnosis& diagnosis,
                  const AttemptFacts& facts) {
  if (!facts.gpu_faults.empty()) {
    const auto& [node, text] = *facts.gpu_faults.begin();
    return Fault{Fault::Kind::node, text, node, ""};
  }
  std::string first;
  int same = 0;
  for (const auto& failure : failures) {
    std::string exception = last_exception(failure);
    if (exception.empty() || (!first.empty() && exception != first)) {
      same = -1;
      break;
    }
    first = exception;
    ++same;
  }
  std::string root_exception;
  for (const auto& failure : failures) {
    if (failure.root) root_exception = last_exception(failure);
  }
  if (same >= std::min(2, facts.world_size) && same > 0) {
    return Fault{Fault::Kind::workload, fmt::format("the same exception on every rank ({})", first), std::nullopt,
                 first};
  }
  Fault fault = classify(diagnosis, failures, facts.host_of);
  fault.exception = root_exception;
  if (fault.kind == Fault::Kind::unknown && facts.first_step == FirstStep::not_reached) {
    fault.kind = Fault::Kind::workload;
    fault.reason = fmt::format("{}, before any rank's first step", fault.reason);
  }
  return fault;
}

Fault classify(const diagnosis::Diagnosis& diagnosis, const std::vector<diagnosis::RankFailure>& failures,
               const std::function<std::optional<size_t>(const std::string&)>& host_of) {
  if (diagnosis.entry) {
    std::string reason = fmt::format("{} (rank {} on {})", diagnosis.title, diagnosis.rank, diagnosis.node);
    switch (diagnosis.entry->fault) {
      case diagnosis::FaultClass::node:  // the node is named by whoever says it is excluded
        return Fault{Fault::Kind::node, fmt::format("{} (rank {})", diagnosis.title, diagnosis.rank),
                     host_of(diagnosis.node), ""};
      case diagnosis::FaultClass::workload:
        return Fault{Fault::Kind::workload, reason, std::nullopt, ""};
      case diagnosis::FaultClass::unknown:
        return Fault{Fault::Kind::unknown, reason, std::nullopt, ""};
    }
  }
  for (const auto& failure : failures) {
    if (failure.root) {
      std::string how = failure.how == diagnosis::RankFailure::How::exited     ? fmt::format("exit {}", failure.code)
                        : failure.how == diagnosis::RankFailure::How::signaled ? fmt::format("signal {}", failure.code)
                                                                               : std::string("did not start");
      return Fault{Fault::Kind::unknown, fmt::format("rank {} on {} failed ({})", failure.rank, failure.node, how),
                   std::nullopt, ""};
    }
  }
  return Fault{Fault::Kind::unknown, "a rank failed", std::nullopt, ""};
}

}  // namespace muster::launch
