#include "doctor/checks/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cluster/node_set.h"

namespace muster::doctor {
namespace {

struct Counts {
  int errors = 0, warnings = 0, ok = 0;
};

Counts count(const std::vector<Finding>& findings) {
  Counts counts;
  for (const auto& finding : findings) {
    switch (finding.severity) {
      case Severity::error:
        ++counts.errors;
        break;
      case Severity::warning:
        ++counts.warnings;
        break;
      case Severity::ok:
        ++counts.ok;
        break;
    }
  }
  return counts;
}

// The findings in report order: checks by worst severity (stable), within a check by severity.
std::vector<Finding> report_order(const std::vector<Finding>& findings) {
  std::vector<std::string> checks;
  for (const auto& finding : findings) {
    if (std::find(checks.begin(), checks.end(), finding.check) == checks.end())
      checks.push_back(finding.check);
  }
  auto worst = [&](const std::string& check) {
    Severity severity = Severity::ok;
    for (const auto& finding : findings) {
      if (finding.check == check) severity = std::max(severity, finding.severity);
    }
    return severity;
  };
  std::stable_sort(checks.begin(), checks.end(),
                   [&](const auto& a, const auto& b) { return worst(a) > worst(b); });
  std::vector<Finding> ordered;
  for (const auto& check : checks) {
    std::size_t first = ordered.size();
    for (const auto& finding : findings) {
      if (finding.check == check) ordered.push_back(finding);
    }
    std::stable_sort(ordered.begin() + static_cast<std::ptrdiff_t>(first), ordered.end(),
                     [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  }
  return ordered;
}

std::string paint(bool color, const char* code, const std::string& text) {
  return color ? fmt::format("\033[{}m{}\033[0m", code, text) : text;
}

std::string label(Severity severity, bool color) {
  switch (severity) {
    case Severity::error:
      return paint(color, "1;31", "ERROR");
    case Severity::warning:
      return paint(color, "1;33", "WARN ");
    case Severity::ok:
      return paint(color, "32", "ok   ");
  }
  return "";
}

// Continuation lines of a multi-line message, indented under its first line.
std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += prefix;
  }
  return out;
}

std::string plural(int n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Findings that say the same (check, severity, message, fix) on several nodes, as one: the nodes folded.
struct FoldedFinding {
  const Finding* finding;
  std::vector<std::string> nodes;
};

std::vector<FoldedFinding> fold_alike(const std::vector<Finding>& ordered) {
  std::vector<FoldedFinding> folded;
  for (const auto& finding : ordered) {
    auto same = std::find_if(folded.begin(), folded.end(), [&](const FoldedFinding& f) {
      return f.finding->check == finding.check && f.finding->severity == finding.severity &&
             f.finding->message == finding.message && f.finding->fix == finding.fix &&
             f.nodes.empty() == finding.node.empty();
    });
    if (same == folded.end()) {
      folded.push_back({&finding, {}});
      same = folded.end() - 1;
    }
    if (!finding.node.empty()) same->nodes.push_back(finding.node);
  }
  return folded;
}

}  // namespace

std::string format_report(const std::vector<Finding>& findings, const std::vector<std::string>& names,
                          bool color) {
  std::string out = fmt::format("muster doctor: {} ({})\n", plural(static_cast<int>(names.size()), "node", "nodes"),
                                cluster::fold_nodes(names));
  std::string check;
  auto ordered = report_order(findings);
  for (const auto& [finding, nodes] : fold_alike(ordered)) {
    if (finding->check != check) {
      check = finding->check;
      out += "\n" + paint(color, "1", check) + "\n";
    }
    std::string where =
        finding->severity == Severity::ok ? "" : (nodes.empty() ? "cluster" : cluster::counted_nodes(nodes)) + ": ";
    out += fmt::format("  {} {}{}\n", label(finding->severity, color), where, indent(finding->message, "        "));
    if (!finding->fix.empty()) {
      out += fmt::format("        {} {}\n", finding->severity == Severity::ok ? "use:" : "fix:", finding->fix);
    }
  }
  Counts counts = count(findings);
  out += fmt::format("\n{}, {}, {}\n", plural(counts.errors, "error", "errors"),
                     plural(counts.warnings, "warning", "warnings"),
                     plural(counts.ok, "check passed", "checks passed"));
  return out;
}

nlohmann::json report_json(const std::vector<Finding>& findings, const std::vector<std::string>& names) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& finding : report_order(findings)) {
    list.push_back({{"severity", severity_name(finding.severity)},
                    {"check", finding.check},
                    {"node", finding.node},
                    {"message", finding.message},
                    {"fix", finding.fix}});
  }
  Counts counts = count(findings);
  return {{"version", 1},
          {"nodes", names},
          {"findings", list},
          {"summary", {{"errors", counts.errors}, {"warnings", counts.warnings}, {"ok", counts.ok}}}};
}

int exit_code(const std::vector<Finding>& findings) {
  Counts counts = count(findings);
  return counts.errors > 0 ? 2 : counts.warnings > 0 ? 1 : 0;
}

}  // namespace muster::doctor
