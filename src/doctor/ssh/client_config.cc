#include "doctor/ssh/client_config.h"

#include <algorithm>
#include <cctype>

#include "doctor/ssh/known_hosts.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

constexpr int kMaxIncludeDepth = 16;  // OpenSSH's READCONF_MAX_DEPTH

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A config line's keyword and arguments: `Keyword args`, `Keyword=args` or `Keyword = args`; "double quotes"
// group blanks into one argument. Empty keyword: a blank or comment line.
std::pair<std::string, std::vector<std::string>> split_config_line(std::string_view line) {
  line = trim(line);
  if (line.empty() || line[0] == '#') return {};
  size_t end = 0;
  while (end < line.size() && !blank(line[end]) && line[end] != '=') ++end;
  std::string keyword = lower(line.substr(0, end));
  size_t i = end;
  while (i < line.size() && blank(line[i])) ++i;
  if (i < line.size() && line[i] == '=') ++i;
  std::vector<std::string> args;
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    if (i >= line.size()) break;
    if (line[i] == '"') {
      size_t close = line.find('"', i + 1);
      if (close == std::string_view::npos) close = line.size();
      args.emplace_back(line.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      size_t start = i;
      while (i < line.size() && !blank(line[i])) ++i;
      args.emplace_back(line.substr(start, i - start));
    }
  }
  return {keyword, args};
}

std::string expand_tilde(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.rfind("~/", 0) == 0) return home + path.substr(1);
  return path;
}

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && blank(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !blank(text[i])) ++i;
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

// StrictHostKeyChecking as `ssh -G` prints it; "" for a value ssh would refuse.
std::string strict_name(const std::string& value) {
  std::string v = lower(value);
  if (v == "yes" || v == "true") return "true";
  if (v == "no" || v == "false" || v == "off") return "false";
  if (v == "ask" || v == "accept-new") return v;
  return "";
}

bool has_token(const std::string& text) { return text.find('%') != std::string::npos; }

// The defaults of OpenSSH 9 (readconf.c fill_default_options) for what the config does not set.
const std::vector<std::string>& default_identities() {
  static const std::vector<std::string> files = {"~/.ssh/id_rsa",     "~/.ssh/id_ecdsa",        "~/.ssh/id_ecdsa_sk",
                                                 "~/.ssh/id_ed25519", "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",
                                                 "~/.ssh/id_dsa"};
  return files;
}

}  // namespace

ResolvedPeer parse_ssh_g(std::string_view text) {
  ResolvedPeer peer;
  std::vector<std::string> global, user;
  for (auto line : split_lines(text)) {
    auto w = words_of(line);
    if (w.empty()) continue;
    std::string key = lower(w[0]);
    std::string value = w.size() > 1 ? std::string(trim(line.substr(line.find(w[0]) + w[0].size()))) : "";
    if (key == "hostname") peer.host = value;
    else if (key == "port") peer.port = value;
    else if (key == "user") peer.user = value;
    else if (key == "hostkeyalias") peer.alias = value;
    else if (key == "stricthostkeychecking") peer.strict = value;
    else if (key == "identitiesonly") peer.identities_only = value == "yes";
    else if ((key == "proxycommand" || key == "proxyjump") && value != "none") peer.proxy = true;
    else if (key == "globalknownhostsfile") global.assign(w.begin() + 1, w.end());
    else if (key == "userknownhostsfile") user.assign(w.begin() + 1, w.end());
    else if (key == "identityfile") peer.identity_files.push_back(value);
  }
  peer.global_known_files = global;
  peer.user_known_files = user;
  return peer;
}

SshConfig SshConfig::load(const std::string& user_file, const std::string& system_file, const std::string& home,
                          const std::string& user, const ReadFile& read, const Glob& glob) {
  SshConfig config;
  config.home_ = home;
  config.user_ = user;
  config.read_file(user_file, home + "/.ssh", {}, 0, read, glob);
  config.read_file(system_file, "/etc/ssh", {}, 0, read, glob);
  return config;
}

SshConfig SshConfig::load_one(const std::string& file, const std::string& home, const std::string& user,
                              const ReadFile& read, const Glob& glob) {
  SshConfig config;
  config.home_ = home;
  config.user_ = user;
  config.read_file(file, home + "/.ssh", {}, 0, read, glob);
  return config;
}

void SshConfig::read_file(const std::string& path, const std::string& relative_to, std::vector<size_t> conditions,
                          int depth, const ReadFile& read, const Glob& glob) {
  if (depth > kMaxIncludeDepth) {
    unsupported_ = "Include nested deeper than " + std::to_string(kMaxIncludeDepth);
    return;
  }
  auto text = read(path);
  if (!text) return;
  std::vector<size_t> current = conditions;
  for (auto raw : split_lines(*text)) {
    auto [keyword, args] = split_config_line(raw);
    if (keyword.empty()) continue;
    if (keyword == "host") {
      HostLine host;
      for (const auto& pattern : args) {
        if (pattern.find(',') != std::string::npos) unsupported_ = "a Host pattern with a comma";
        host.patterns.push_back(pattern);
      }
      hosts_.push_back(std::move(host));
      current = conditions;
      current.push_back(hosts_.size() - 1);
    } else if (keyword == "match") {
      unsupported_ = "Match blocks";
    } else if (keyword == "include") {
      for (const auto& arg : args) {
        std::string pattern = expand_tilde(arg, home_);
        if (pattern.empty() || pattern[0] != '/') pattern = relative_to + "/" + pattern;
        for (const auto& file : glob(pattern)) read_file(file, relative_to, current, depth + 1, read, glob);
      }
    } else {
      if (keyword == "canonicalizehostname" && !args.empty() && lower(args[0]) != "no" && lower(args[0]) != "false") {
        unsupported_ = "CanonicalizeHostname";
      }
      lines_.push_back({keyword, args, current});
    }
  }
}

std::vector<bool> SshConfig::host_matches(std::string_view destination) const {
  std::vector<bool> matches;
  matches.reserve(hosts_.size());
  // readconf.c: a negated pattern that matches rules the block out; else any positive match rules it in. The
  // name is matched as given (`ssh NODE1` does not match `Host node1`), before ssh lowercases it.
  for (const auto& host : hosts_) {
    bool matched = false;
    for (const auto& pattern : host.patterns) {
      bool negated = !pattern.empty() && pattern[0] == '!';
      if (!ssh_pattern_matches(destination, std::string_view(pattern).substr(negated ? 1 : 0))) continue;
      if (negated) {
        matched = false;
        break;
      }
      matched = true;
    }
    matches.push_back(matched);
  }
  return matches;
}

std::string SshConfig::group_of(std::string_view destination) const {
  // The shape of what applies: the keywords of the active lines in order, and which values hold a %token. Peers
  // with one shape differ only in literal values (a HostName per node alias, say), which the model copies.
  auto matches = host_matches(destination);
  std::string key;
  for (const auto& line : lines_) {
    bool active = std::all_of(line.conditions.begin(), line.conditions.end(), [&](size_t h) { return matches[h]; });
    if (!active) continue;
    key += line.keyword;
    for (const auto& arg : line.args) {
      if (arg.find('%') != std::string::npos) key += '%';
    }
    key += ';';
  }
  return key;
}

std::optional<ResolvedPeer> SshConfig::resolve(std::string_view destination) const {
  if (!supported()) return std::nullopt;
  std::string name = lower(destination);
  auto matches = host_matches(destination);
  std::optional<std::string> hostname, port, user, alias, strict, only, proxy, global, known;
  std::vector<std::string> identities;
  auto first = [](std::optional<std::string>& slot, const std::vector<std::string>& args) {
    if (!slot && !args.empty()) {
      std::string joined;
      for (const auto& arg : args) joined += (joined.empty() ? "" : " ") + arg;
      slot = joined;
    }
  };
  for (const auto& line : lines_) {
    bool active = std::all_of(line.conditions.begin(), line.conditions.end(), [&](size_t h) { return matches[h]; });
    if (!active) continue;
    const std::string& k = line.keyword;
    if (k == "hostname") first(hostname, line.args);
    else if (k == "port") first(port, line.args);
    else if (k == "user") first(user, line.args);
    else if (k == "hostkeyalias") first(alias, line.args);
    else if (k == "stricthostkeychecking") first(strict, line.args);
    else if (k == "identitiesonly") first(only, line.args);
    else if (k == "proxycommand" || k == "proxyjump") first(proxy, line.args);
    else if (k == "globalknownhostsfile") first(global, line.args);
    else if (k == "userknownhostsfile") first(known, line.args);
    else if (k == "identityfile" && !line.args.empty()) identities.push_back(line.args[0]);
  }
  ResolvedPeer peer;
  if (hostname) {
    std::string expanded;
    for (size_t i = 0; i < hostname->size(); ++i) {
      char c = (*hostname)[i];
      if (c != '%') {
        expanded += c;
        continue;
      }
      char next = i + 1 < hostname->size() ? (*hostname)[i + 1] : '\0';
      if (next == 'h') expanded += name;
      else if (next == '%') expanded += '%';
      else return std::nullopt;
      ++i;
    }
    peer.host = lower(expanded);
  } else {
    peer.host = name;
  }
  if (port) peer.port = *port;
  peer.user = user.value_or(user_);
  if ((user && has_token(*user)) || (alias && has_token(*alias))) return std::nullopt;
  if (alias) peer.alias = lower(*alias);
  if (strict) {
    peer.strict = strict_name(*strict);
    if (peer.strict.empty()) return std::nullopt;
  }
  if (only) peer.identities_only = lower(*only) == "yes" || lower(*only) == "true";
  peer.proxy = proxy && lower(*proxy) != "none";
  auto files = [&](const std::optional<std::string>& value, const std::vector<std::string>* fallback,
                   const char* builtin) {
    std::vector<std::string> out;
    if (!value && fallback) return *fallback;
    for (const auto& file : words_of(value.value_or(builtin))) out.push_back(expand_tilde(file, home_));
    return out;
  };
  peer.global_known_files = files(global, defaults_ ? &defaults_->global_known_files : nullptr,
                                  "/etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2");
  peer.user_known_files = files(known, defaults_ ? &defaults_->user_known_files : nullptr,
                                "~/.ssh/known_hosts ~/.ssh/known_hosts2");
  peer.identity_files = !identities.empty() ? identities
                        : defaults_         ? defaults_->identity_files
                                            : default_identities();
  for (const auto* list : {&peer.global_known_files, &peer.user_known_files, &peer.identity_files}) {
    if (std::any_of(list->begin(), list->end(), has_token)) return std::nullopt;
  }
  return peer;
}

}  // namespace muster::doctor
