#include "launch/env_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "cluster/text_error.h"

namespace muster::launch {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

bool starts_with_any(std::string_view name, const std::vector<std::string_view>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

bool is_denied(std::string_view name) {
  for (std::string_view entry : never_propagated()) {
    if (entry.ends_with('_') ? name.starts_with(entry) : name == entry) return true;
  }
  return false;
}

bool is_muster_name(std::string_view name) {
  const auto& names = muster_env_names();
  return std::binary_search(names.begin(), names.end(), name);
}

std::string invalid_name_message(std::string_view name) {
  return fmt::format(
      "\"{}\" is not a valid variable name (letters, digits and '_', not starting with a digit)", name);
}

std::string muster_name_message(std::string_view name) {
  return fmt::format("{} is set by muster for every process and cannot be overridden", name);
}

// ---- the env-file reader -----------------------------------------------------------------------------

// One line of an env-file, consumed left to right; errors carry the 1-based column of `pos`.
class LineReader {
 public:
  LineReader(std::string_view line, std::string_view file, int line_number)
      : line_(line), file_(file), line_number_(line_number) {}

  Result<std::optional<EnvFileEntry>> read();

 private:
  Error error_at(size_t pos, std::string_view message) const {
    return cluster::error_in_file(file_, line_number_, static_cast<int>(pos) + 1, message);
  }
  bool at_end() const { return pos_ >= line_.size(); }
  char peek() const { return line_[pos_]; }
  void skip_blanks() {
    while (!at_end() && is_blank(peek())) ++pos_;
  }
  bool at_comment_or_end() {
    skip_blanks();
    return at_end() || peek() == '#';
  }
  Result<std::string> read_word();
  Result<void> read_single_quoted(std::string& out);
  Result<void> read_double_quoted(std::string& out);
  Result<void> read_plain_char(std::string& out, bool word_start);

  std::string_view line_;
  std::string_view file_;
  int line_number_;
  size_t pos_ = 0;
};

Result<std::optional<EnvFileEntry>> LineReader::read() {
  if (at_comment_or_end()) return std::optional<EnvFileEntry>();
  if (line_.substr(pos_).starts_with("export") && pos_ + 6 < line_.size() && is_blank(line_[pos_ + 6])) {
    pos_ += 6;
    skip_blanks();
  }
  const size_t name_start = pos_;
  while (!at_end() && peek() != '=' && !is_blank(peek())) ++pos_;
  EnvFileEntry entry;
  entry.name = line_.substr(name_start, pos_ - name_start);
  entry.line = line_number_;
  if (entry.name.empty()) return error_at(name_start, "expected a variable name before '='");
  if (!is_valid_env_name(entry.name)) return error_at(name_start, invalid_name_message(entry.name));
  if (at_comment_or_end()) {
    entry.copy_from_head = true;
    return std::optional<EnvFileEntry>(std::move(entry));
  }
  if (peek() != '=')
    return error_at(pos_, fmt::format("expected '=' after {}, found {}", entry.name,
                                      cluster::describe_found(line_.substr(pos_))));
  ++pos_;
  auto value = read_word();
  if (!value) return value.error();
  if (!at_comment_or_end()) {
    return error_at(pos_, fmt::format("{} after the value: unquoted whitespace ends a value; put the whole "
                                      "value in quotes",
                                      cluster::describe_found(line_.substr(pos_))));
  }
  entry.value = std::move(*value);
  return std::optional<EnvFileEntry>(std::move(entry));
}

Result<std::string> LineReader::read_word() {
  std::string out;
  const size_t start = pos_;
  while (!at_end() && !is_blank(peek())) {
    Result<void> step;
    if (peek() == '\'') {
      step = read_single_quoted(out);
    } else if (peek() == '"') {
      step = read_double_quoted(out);
    } else {
      step = read_plain_char(out, pos_ == start);
    }
    if (!step) return step.error();
  }
  return out;
}

Result<void> LineReader::read_single_quoted(std::string& out) {
  const size_t open = pos_++;
  const size_t close = line_.find('\'', pos_);
  if (close == std::string_view::npos) return error_at(open, "unterminated single quote");
  out += line_.substr(pos_, close - pos_);
  pos_ = close + 1;
  return {};
}

constexpr std::string_view kNoExpansion =
    "muster does not expand variables or commands: write the value out, or single-quote it for a literal";

Result<void> LineReader::read_double_quoted(std::string& out) {
  const size_t open = pos_++;
  while (!at_end() && peek() != '"') {
    const char c = peek();
    if (c == '$' || c == '`')
      return error_at(pos_, fmt::format("'{}' in a value: {} {}", c, kNoExpansion, c));
    if (c == '\\' && pos_ + 1 < line_.size() &&
        std::string_view("\\\"$`").find(line_[pos_ + 1]) != std::string_view::npos) {
      ++pos_;
    }
    out += line_[pos_++];
  }
  if (at_end()) return error_at(open, "unterminated double quote");
  ++pos_;
  return {};
}

Result<void> LineReader::read_plain_char(std::string& out, bool word_start) {
  const char c = peek();
  if (c == '\\') {
    if (pos_ + 1 >= line_.size()) return error_at(pos_, "a line may not end in '\\' (no continuation lines)");
    out += line_[pos_ + 1];
    pos_ += 2;
    return {};
  }
  if (c == '$' || c == '`') return error_at(pos_, fmt::format("'{}' in a value: {} {}", c, kNoExpansion, c));
  if (c == '~' && word_start) return error_at(pos_, "muster does not expand '~': write the path out");
  if (std::string_view(";&|<>()").find(c) != std::string_view::npos) {
    return error_at(pos_, fmt::format("unquoted '{}' in a value; put the value in quotes", c));
  }
  out += c;
  ++pos_;
  return {};
}

// ---- precedence ---------------------------------------------------------------------------------------

Result<std::vector<std::string_view>> checked_prefixes(const EnvPolicy& policy) {
  std::vector<std::string_view> prefixes;
  if (policy.propagate_defaults) prefixes = default_env_prefixes();
  for (const std::string& prefix : policy.extra_prefixes) {
    const bool valid = !prefix.empty() && is_name_start(prefix[0]) &&
                       std::all_of(prefix.begin(), prefix.end(), is_name_char);
    if (!valid) {
      return make_error(ErrorKind::usage,
                        "--env-prefix \"{}\": a prefix is the start of a variable name "
                        "(letters, digits and '_', not starting with a digit)",
                        prefix);
    }
    prefixes.push_back(prefix);
  }
  return prefixes;
}

Result<void> apply_file(const std::map<std::string, std::string>& head_env, const EnvFile& file,
                        std::map<std::string, std::string>& out) {
  auto entries = parse_env_file(file.text, file.name);
  if (!entries) return entries.error();
  for (EnvFileEntry& entry : *entries) {
    if (is_muster_name(entry.name))
      return cluster::error_in_file(file.name, entry.line, 1, muster_name_message(entry.name));
    if (entry.copy_from_head) {
      auto it = head_env.find(entry.name);
      if (it == head_env.end()) {
        return cluster::error_in_file(file.name, entry.line, 1,
                                      fmt::format("{} is not set in muster's environment; give it a value "
                                                  "with {}=VALUE",
                                                  entry.name, entry.name));
      }
      entry.value = it->second;
    }
    out.insert_or_assign(std::move(entry.name), std::move(entry.value));
  }
  return {};
}

Result<void> apply_flag(const std::map<std::string, std::string>& head_env, const std::string& flag,
                        std::map<std::string, std::string>& out) {
  const size_t equals = flag.find('=');
  const std::string name = flag.substr(0, equals);
  if (!is_valid_env_name(name))
    return make_error(ErrorKind::usage, "--env \"{}\": {}", flag, invalid_name_message(name));
  if (is_muster_name(name))
    return make_error(ErrorKind::usage, "--env \"{}\": {}", flag, muster_name_message(name));
  if (equals != std::string::npos) {
    out.insert_or_assign(name, flag.substr(equals + 1));
    return {};
  }
  auto it = head_env.find(name);
  if (it == head_env.end()) {
    return make_error(ErrorKind::usage,
                      "--env {}: {} is not set in muster's environment; give it a value with "
                      "--env {}=VALUE",
                      name, name, name);
  }
  out.insert_or_assign(name, it->second);
  return {};
}

// ---- secrets ------------------------------------------------------------------------------------------

std::vector<std::string> upper_words(std::string_view name) {
  std::vector<std::string> words(1);
  for (char c : name) {
    if (c == '_') {
      words.emplace_back();
    } else {
      words.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return words;
}

bool is_secret_word(std::string_view word) {
  static constexpr std::string_view kWords[] = {"TOKEN", "TOKENS", "KEY", "KEYS", "PASS", "PAT"};
  static constexpr std::string_view kKeyCompounds[] = {"APIKEY",    "ACCESSKEY",  "PRIVATEKEY",
                                                       "SECRETKEY", "SIGNINGKEY", "ENCRYPTIONKEY"};
  static constexpr std::string_view kParts[] = {"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL"};
  auto is = [&](std::string_view w) { return word == w; };
  auto has = [&](std::string_view part) { return word.find(part) != std::string_view::npos; };
  return std::any_of(std::begin(kWords), std::end(kWords), is) || word.ends_with("TOKEN") ||
         word.ends_with("TOKENS") || std::any_of(std::begin(kKeyCompounds), std::end(kKeyCompounds), is) ||
         std::any_of(std::begin(kParts), std::end(kParts), has);
}

// `scheme://user:password@host...` with the password replaced by ***, for every URL in the value.
std::string redact_url_passwords(std::string_view value) {
  std::string out;
  size_t pos = 0;
  for (size_t scheme_end; (scheme_end = value.find("://", pos)) != std::string_view::npos;) {
    const size_t authority = scheme_end + 3;
    // The authority ends at its path, query or fragment, at whitespace, or where another URL starts.
    const size_t authority_end =
        std::min({value.find_first_of("/?# \t\n", authority), value.find("://", authority), value.size()});
    const size_t at = value.substr(authority, authority_end - authority).rfind('@');
    const size_t colon = at == std::string_view::npos ? at : value.substr(authority, at).find(':');
    if (colon == std::string_view::npos) {
      out += value.substr(pos, authority_end - pos);
    } else {
      out += value.substr(pos, authority + colon + 1 - pos);
      out += "***";
      out += value.substr(authority + at, authority_end - authority - at);
    }
    pos = authority_end;
  }
  out += value.substr(pos);
  return out;
}

// Later entries win, as in an environment assembled in order.
std::map<std::string, std::string> as_map(const EnvList& env) {
  std::map<std::string, std::string> map;
  for (const auto& [name, value] : env) map.insert_or_assign(name, value);
  return map;
}

std::string format_block(std::string_view title, const EnvList& env) {
  std::string text = fmt::format("# {}\n", title);
  for (const auto& [name, value] : as_map(env))
    text += fmt::format("{}={}\n", name, shell_quote(redact(name, value)));
  return text;
}

}  // namespace

const std::vector<std::string_view>& default_env_prefixes() {
  static const std::vector<std::string_view> prefixes = {
      "NCCL_",  "GLOO_",          "UCX_", "MV2_",          "FI_",         "CUDA_",       "PYTHON",
      "TORCH_", "TORCHINDUCTOR_", "HF_",  "TRANSFORMERS_", "TOKENIZERS_", "ACCELERATE_", "DS_",
      "WANDB_", "MLFLOW_",        "OMP_", "MKL_",          "KMP_",
  };
  return prefixes;
}

const std::vector<std::string_view>& never_propagated() {
  static const std::vector<std::string_view> names = {
      "PATH",       "HOME",
      "USER",       "LOGNAME",
      "SHELL",      "PWD",
      "OLDPWD",     "SHLVL",
      "TERM",       "COLORTERM",
      "DISPLAY",    "XAUTHORITY",
      "LANG",       "LANGUAGE",
      "LC_",        "SSH_",
      "XDG_",       "MAIL",
      "HOSTNAME",   "TMPDIR",
      "TMUX",       "STY",
      "KRB5CCNAME", "DBUS_SESSION_BUS_ADDRESS",
      "LS_COLORS",  "LD_LIBRARY_PATH",
      "LD_PRELOAD", "CUDA_VISIBLE_DEVICES",
      "CUDA_HOME",  "CUDA_PATH",
      "MUSTER_",    "TORCHELASTIC_",
  };
  return names;
}

bool is_valid_env_name(std::string_view name) {
  return !name.empty() && is_name_start(name[0]) && std::all_of(name.begin(), name.end(), is_name_char);
}

Result<std::vector<EnvFileEntry>> parse_env_file(std::string_view text, std::string_view filename) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<EnvFileEntry> entries;
  int line_number = 0;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (const size_t nul = line.find('\0'); nul != std::string_view::npos) {
      return cluster::error_in_file(filename, line_number, static_cast<int>(nul) + 1,
                                    "NUL byte in an env-file");
    }
    auto entry = LineReader(line, filename, line_number).read();
    if (!entry) return entry.error();
    if (*entry) entries.push_back(std::move(**entry));
  }
  return entries;
}

Result<EnvList> propagated_env(const std::map<std::string, std::string>& head_env, const EnvPolicy& policy) {
  auto prefixes = checked_prefixes(policy);
  if (!prefixes) return prefixes.error();
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : head_env) {
    if (is_valid_env_name(name) && starts_with_any(name, *prefixes) && !is_denied(name) &&
        !is_muster_name(name)) {
      out.emplace(name, value);
    }
  }
  for (const EnvFile& file : policy.files) {
    if (auto applied = apply_file(head_env, file, out); !applied) return applied.error();
  }
  for (const std::string& flag : policy.set) {
    if (auto applied = apply_flag(head_env, flag, out); !applied) return applied.error();
  }
  return EnvList(out.begin(), out.end());
}

bool is_secret(std::string_view name) {
  const std::vector<std::string> words = upper_words(name);
  return std::any_of(words.begin(), words.end(),
                     [](const std::string& word) { return is_secret_word(word); });
}

std::string redact(std::string_view name, std::string_view value) {
  if (is_secret(name)) return "***";
  return redact_url_passwords(value);
}

EnvListing make_env_listing(std::string title,
                            const std::vector<std::pair<std::string, EnvList>>& processes) {
  EnvListing listing{.title = std::move(title), .common = {}, .processes = {}};
  std::vector<std::map<std::string, std::string>> envs;
  for (const auto& process : processes) envs.push_back(as_map(process.second));
  if (envs.empty()) return listing;
  std::map<std::string, std::string> common;
  for (const auto& [name, value] : envs.front()) {
    auto shares = [&](const auto& env) {
      auto it = env.find(name);
      return it != env.end() && it->second == value;
    };
    if (std::all_of(envs.begin(), envs.end(), shares)) common.emplace(name, value);
  }
  listing.common.assign(common.begin(), common.end());
  if (processes.size() == 1) return listing;
  for (size_t i = 0; i < processes.size(); ++i) {
    EnvList own;
    for (const auto& [name, value] : envs[i]) {
      if (!common.contains(name)) own.emplace_back(name, value);
    }
    listing.processes.emplace_back(processes[i].first, std::move(own));
  }
  return listing;
}

std::string format_env_listing(const std::vector<EnvListing>& nodes) {
  std::string text;
  for (const EnvListing& node : nodes) {
    if (!text.empty()) text += '\n';
    text += format_block(node.title, node.common);
    for (const auto& [label, env] : node.processes)
      text += format_block(fmt::format("{}, {}", node.title, label), env);
  }
  return text;
}

}  // namespace muster::launch
