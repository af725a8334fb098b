#include "diagnosis/matcher.h"

#include <algorithm>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

#include "cluster/node_set.h"
#include "diagnosis/stack_groups.h"
#include "util/text.h"

namespace muster::diagnosis {
namespace {

struct Found {
  const FailureEntry* entry = nullptr;
  std::string line;
  std::vector<std::string> captures;  // [1..9]
};

bool has_finding(const ClusterFacts& facts, const std::string& check) {
  return std::any_of(facts.findings.begin(), facts.findings.end(), [&](const Finding& finding) {
    return finding.check == check && finding.severity != Severity::ok;
  });
}

std::vector<std::string> all_lines(const RankFailure& failure) {
  std::vector<std::string> lines = error_file_lines(failure.error_file);
  lines.insert(lines.end(), failure.lines.begin(), failure.lines.end());
  return lines;
}

bool ended_as(const FailureEntry& entry, const RankFailure& failure) {
  if (entry.lost && failure.how != RankFailure::How::lost) return false;
  bool signaled = failure.how == RankFailure::How::signaled;
  bool exited = failure.how == RankFailure::How::exited || failure.how == RankFailure::How::failed_to_start;
  bool by_signal = signaled && std::count(entry.signals.begin(), entry.signals.end(), failure.code);
  bool by_code = exited && std::count(entry.exit_codes.begin(), entry.exit_codes.end(), failure.code);
  if ((!entry.signals.empty() || !entry.exit_codes.empty()) && !by_signal && !by_code) return false;
  return std::all_of(entry.notes.begin(), entry.notes.end(),
                     [&](const std::string& note) { return failure.notes.count(note) > 0; });
}

// The last line (newest first: the final exception beats earlier noise) that one of the patterns matches.
std::optional<Found> match_output(const FailureEntry& entry, const std::vector<std::string>& lines) {
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    for (const auto& pattern : entry.output) {
      std::smatch groups;
      if (!std::regex_search(*line, groups, pattern.regex)) continue;
      Found found{&entry, std::string(trim(*line)), {}};
      for (size_t i = 0; i < groups.size() && i < 10; ++i) found.captures.push_back(groups[i].str());
      return found;
    }
  }
  return std::nullopt;
}

// `facts_known`: doctor's findings were gathered; without them an entry that needs them does not match (yet).
std::optional<Found> match_rank(const Catalogue& catalogue, const RankFailure& failure, const ClusterFacts& facts,
                                bool ignore_facts) {
  std::vector<std::string> lines = all_lines(failure);
  for (const auto& entry : catalogue.entries) {
    if (!ended_as(entry, failure)) continue;
    if (!ignore_facts) {
      if (!entry.facts.empty() && !facts.gathered) continue;
      bool all = std::all_of(entry.facts.begin(), entry.facts.end(), [&](auto& f) { return has_finding(facts, f); });
      if (!all) continue;
    }
    if (entry.output.empty()) return Found{&entry, "", {}};
    if (auto found = match_output(entry, lines)) return found;
  }
  return std::nullopt;
}

std::string signal_text(int signal) {
  const char* name = sigabbrev_np(signal);
  return name ? fmt::format("SIG{} (signal {})", name, signal) : fmt::format("signal {}", signal);
}

std::string describe_end(const RankFailure& failure) {
  switch (failure.how) {
    case RankFailure::How::signaled: return signal_text(failure.code);
    case RankFailure::How::exited: return fmt::format("exit code {}", failure.code);
    case RankFailure::How::failed_to_start: return "it could not start";
    case RankFailure::How::lost: return "its node was lost";
  }
  return "";
}

std::string finding_texts(const ClusterFacts& facts, const std::string& check, bool fixes) {
  std::vector<std::string> texts;
  for (const auto& finding : facts.findings) {
    if (finding.check != check) continue;
    const std::string& text = fixes ? finding.fix : finding.message;
    if (!text.empty() && std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(text);
  }
  return fixes ? fmt::format("{}", fmt::join(texts, "; ")) : fmt::format("{}", fmt::join(texts, "\n"));
}

std::string expand_module(std::string text, const std::vector<std::string>& captures) {
  for (size_t i = 1; i < captures.size(); ++i) {
    std::string key = "{" + std::to_string(i) + "}";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + captures[i].size())) {
      text.replace(at, key.size(), captures[i]);
    }
  }
  return text;
}

std::string expand(std::string_view text, const Diagnosis& d, const RankFailure& failure, const Found& found,
                   const ClusterFacts& facts) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find('{', pos);
    size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.substr(pos, open - pos));
    std::string name(text.substr(open + 1, close - open - 1));
    pos = close + 1;
    std::string module = expand_module(found.entry->check_module, found.captures);
    auto presence = facts.modules.find(module);
    if (name.size() == 1 && name[0] >= '1' && name[0] <= '9') {
      size_t i = static_cast<size_t>(name[0] - '0');
      out += i < found.captures.size() ? found.captures[i] : "";
    } else if (name == "rank") {
      out += std::to_string(d.rank);
    } else if (name == "node") {
      out += d.node;
    } else if (name == "ranks") {
      out += cluster::fold_numbers(d.ranks);
    } else if (name == "nodes") {
      out += cluster::fold_nodes(d.nodes);
    } else if (name == "line") {
      out += found.line;
    } else if (name == "how") {
      out += describe_end(failure);
    } else if (name == "signal") {
      out += failure.how == RankFailure::How::signaled ? signal_text(failure.code) : "";
    } else if (name == "exit_code") {
      out += failure.how == RankFailure::How::exited ? std::to_string(failure.code) : "";
    } else if (name == "error") {
      out += d.error;
    } else if (name == "module") {
      out += module;
    } else if (name == "missing_on" || name == "present_on") {
      const auto* nodes = presence == facts.modules.end()
                              ? nullptr
                              : (name == "missing_on" ? &presence->second.second : &presence->second.first);
      out += !nodes ? "(not checked)" : nodes->empty() ? "no node" : cluster::fold_nodes(*nodes);
    } else if (name == "python") {
      out += facts.python;
    } else if (name == "run_dir") {
      out += facts.run_dir;
    } else if (name.starts_with("fix:") || name.starts_with("finding:")) {
      bool fixes = name.starts_with("fix:");
      out += finding_texts(facts, name.substr(name.find(':') + 1), fixes);
    } else if (name.starts_with("note:")) {
      auto note = failure.notes.find(name.substr(5));
      out += note == failure.notes.end() ? "" : note->second;
    } else {
      out += "{" + name + "}";
    }
  }
  return out;
}

// The exception line of the error file: its message's first line.
std::string error_message(const std::string& json) {
  auto lines = error_file_lines(json);
  return lines.empty() ? "" : lines.front();
}

}  // namespace

std::vector<std::string> error_file_lines(const std::string& json) {
  if (json.empty()) return {};
  auto parsed = nlohmann::json::parse(json, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("message")) return {};
  const auto& message = parsed["message"];
  std::string text, callstack;
  if (message.is_string()) {
    text = message.get<std::string>();
  } else if (message.is_object()) {
    if (message.contains("message") && message["message"].is_string()) text = message["message"].get<std::string>();
    const auto& extra = message.contains("extraInfo") ? message["extraInfo"] : nlohmann::json();
    if (extra.is_object() && extra.contains("py_callstack") && extra["py_callstack"].is_string()) {
      callstack = extra["py_callstack"].get<std::string>();
    }
  }
  std::vector<std::string> lines;
  for (auto line : split_lines(text)) lines.emplace_back(line);
  for (auto line : split_lines(callstack)) lines.emplace_back(line);
  return lines;
}

EvidenceWanted evidence_wanted(const Catalogue& catalogue, const std::vector<RankFailure>& failures) {
  EvidenceWanted wanted;
  for (const auto& failure : failures) {
    auto found = match_rank(catalogue, failure, {}, true);
    if (!found) continue;
    wanted.facts = wanted.facts || found->entry->needs_facts;
    if (!found->entry->check_module.empty()) {
      std::string module = expand_module(found->entry->check_module, found->captures);
      if (!module.empty() && std::find(wanted.modules.begin(), wanted.modules.end(), module) == wanted.modules.end()) {
        wanted.modules.push_back(module);
      }
    }
  }
  return wanted;
}

Diagnosis diagnose(const Catalogue& catalogue, const std::vector<RankFailure>& failures, const ClusterFacts& facts) {
  Diagnosis d;
  std::vector<std::pair<const RankFailure*, Found>> matched;
  for (const auto& failure : failures) {
    if (auto found = match_rank(catalogue, failure, facts, false)) matched.emplace_back(&failure, std::move(*found));
  }
  if (matched.empty()) return d;
  auto better = [](const auto& a, const auto& b) {
    if (a.second.entry->klass != b.second.entry->klass) return a.second.entry->klass < b.second.entry->klass;
    if (a.first->root != b.first->root) return a.first->root;
    if (a.first->ended_ms != b.first->ended_ms) return a.first->ended_ms < b.first->ended_ms;
    return a.first->rank < b.first->rank;
  };
  auto best = std::min_element(matched.begin(), matched.end(), better);
  const RankFailure& failure = *best->first;
  const Found& found = best->second;
  d.entry = found.entry;
  d.rank = failure.rank;
  d.node = failure.node;
  d.line = found.line;
  d.error = error_message(failure.error_file);
  for (const auto& [other, match] : matched) {
    if (match.entry->id != found.entry->id) continue;
    d.ranks.push_back(other->rank);
    if (std::find(d.nodes.begin(), d.nodes.end(), other->node) == d.nodes.end()) d.nodes.push_back(other->node);
  }
  std::sort(d.ranks.begin(), d.ranks.end());
  for (const auto& other : failures) {
    if (std::find(d.ranks.begin(), d.ranks.end(), other.rank) == d.ranks.end()) d.others.push_back(other.rank);
  }
  std::sort(d.others.begin(), d.others.end());
  d.title = expand(found.entry->title, d, failure, found, facts);
  d.explain = expand(found.entry->explain, d, failure, found, facts);
  d.fix = expand(found.entry->fix, d, failure, found, facts);
  d.doc = found.entry->doc;
  return d;
}

std::string format_diagnosis(const Diagnosis& d) {
  if (!d.entry) return "";
  std::string who = d.ranks.size() > 1
                        ? fmt::format("ranks {} on {} (the same error on each; first: rank {} on {})",
                                      cluster::fold_numbers(d.ranks), cluster::fold_nodes(d.nodes), d.rank, d.node)
                        : fmt::format("rank {} on {}", d.rank, d.node);
  std::string text = fmt::format("what happened: {} — {}\n", d.title, who);
  if (!d.error.empty()) text += fmt::format("  error file: {}\n", d.error);
  if (!d.line.empty() && d.line != d.error) text += fmt::format("  matched: {}\n", d.line);
  auto indent = [](const std::string& body) {
    std::string out;
    for (auto line : split_lines(body)) out += "  " + std::string(line) + "\n";
    return out;
  };
  text += indent(std::string(trim(d.explain)));
  text += "what to do:\n" + indent(std::string(trim(d.fix)));
  if (!d.others.empty()) {
    text += fmt::format("  (ranks {} failed too, most likely as a consequence: see their logs)\n", cluster::fold_numbers(d.others));
  }
  if (!d.doc.empty()) text += fmt::format("  more: {}\n", d.doc);
  return text;
}

nlohmann::json diagnosis_json(const Diagnosis& d) {
  if (!d.entry) return nlohmann::json::object();
  return nlohmann::json{{"id", d.entry->id},       {"title", d.title}, {"rank", d.rank},
                        {"node", d.node},          {"ranks", d.ranks}, {"nodes", d.nodes},
                        {"other_ranks", d.others}, {"line", d.line},   {"error", d.error},
                        {"explain", d.explain},    {"fix", d.fix},     {"doc", d.doc},
                        {"entry_origin", d.entry->origin}, {"report", format_diagnosis(d)}};
}

}  // namespace muster::diagnosis
