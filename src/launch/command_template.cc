#include "launch/command_template.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "cluster/text_error.h"
#include "util/edit_distance.h"

namespace muster::launch {
namespace {

bool is_placeholder_name(std::string_view name) {
  const auto& names = placeholder_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The word of `{word}` starting at `pos` (text[pos] == '{'), if the braces close before any other brace.
std::optional<std::string_view> braced_word_at(std::string_view text, size_t pos) {
  const size_t close = text.find_first_of("{}", pos + 1);
  if (close == std::string_view::npos || text[close] != '}') return std::nullopt;
  return text.substr(pos + 1, close - pos - 1);
}

// `{{name}}` at `pos` with a placeholder name: the length it spans.
std::optional<size_t> escape_at(std::string_view text, size_t pos) {
  if (text.substr(pos, 2) != "{{") return std::nullopt;
  auto word = braced_word_at(text, pos + 1);
  if (!word || !is_placeholder_name(*word)) return std::nullopt;
  const size_t end = pos + 2 + word->size();  // at the first closing brace
  if (text.substr(end, 2) != "}}") return std::nullopt;
  return word->size() + 4;
}

std::string value_of(const TemplateValues& values, std::string_view name) {
  if (name == "node_rank") return std::to_string(values.node_rank);
  if (name == "nnodes") return std::to_string(values.nnodes);
  if (name == "master_addr") return values.master_addr;
  if (name == "master_port") return std::to_string(values.master_port);
  if (name == "nproc_per_node") return std::to_string(values.nproc_per_node);
  if (name == "world_size") return std::to_string(values.world_size);
  return values.job_id;
}

// The placeholder a suspicious `{word}` was probably meant to be.
std::optional<std::string> intended_placeholder(std::string_view word) {
  std::string normal;
  for (char c : word)
    normal += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (is_placeholder_name(normal)) return normal;
  if (normal.size() < 3) return std::nullopt;
  const auto& names = placeholder_names();
  return closest_match(normal, std::vector<std::string>(names.begin(), names.end()));
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

std::string placeholder_list() {
  std::string list;
  for (std::string_view name : placeholder_names())
    list += fmt::format("{}{{{}}}", list.empty() ? "" : " ", name);
  return list;
}

}  // namespace

const std::vector<std::string_view>& placeholder_names() {
  static const std::vector<std::string_view> names = {
      "node_rank", "nnodes", "master_addr", "master_port", "nproc_per_node", "world_size", "job_id"};
  return names;
}

TemplateValues template_values(const cluster::RankPlan& plan, const cluster::NodePlan& node,
                               const JobInfo& job) {
  return TemplateValues{.node_rank = node.node_rank,
                        .nnodes = static_cast<int>(plan.nodes.size()),
                        .master_addr = job.master_addr,
                        .master_port = job.master_port,
                        .nproc_per_node = static_cast<int>(node.ranks.size()),
                        .world_size = plan.world_size,
                        .job_id = job.job_id};
}

std::string expand_placeholders(std::string_view arg, const TemplateValues& values) {
  std::string out;
  for (size_t pos = 0; pos < arg.size();) {
    if (arg[pos] != '{') {
      out += arg[pos++];
    } else if (auto escape = escape_at(arg, pos)) {
      out += arg.substr(pos + 1, *escape - 2);  // `{{name}}` -> `{name}`
      pos += *escape;
    } else if (auto word = braced_word_at(arg, pos); word && is_placeholder_name(*word)) {
      out += value_of(values, *word);
      pos += word->size() + 2;
    } else {
      out += arg[pos++];
    }
  }
  return out;
}

std::vector<std::string> expand_command(const std::vector<std::string>& argv, const TemplateValues& values) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const std::string& arg : argv) out.push_back(expand_placeholders(arg, values));
  return out;
}

std::vector<std::string> check_command_template(const std::vector<std::string>& argv) {
  std::vector<std::string> warnings;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    for (size_t pos = arg.find('{'); pos != std::string_view::npos; pos = arg.find('{', pos + 1)) {
      auto word = braced_word_at(arg, pos);
      if (!word || word->empty() || is_placeholder_name(*word)) continue;
      if (!std::all_of(word->begin(), word->end(), is_word_char)) continue;
      auto intended = intended_placeholder(*word);
      if (!intended) continue;
      warnings.push_back(fmt::format(
          "argument {} {}: {{{}}} is not a placeholder and is passed on unchanged; did you mean {{{}}}? "
          "(placeholders: {}; {{{{{}}}}} stands for a literal {{{}}})",
          i, cluster::describe_found(arg), *word, *intended, placeholder_list(), *intended, *intended));
    }
  }
  return warnings;
}

}  // namespace muster::launch
