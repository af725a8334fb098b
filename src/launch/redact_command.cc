#include "launch/redact_command.h"

#include <cctype>

#include "launch/env_policy.h"

namespace muster::launch {
namespace {

constexpr std::string_view kHidden = "***";

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string upper(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Redacts one piece (no whitespace in it); `value_next` says the piece before it was a secret option, and is set
// when this piece is one whose value follows.
std::string redact_piece(std::string_view piece, bool& value_next) {
  if (value_next) {
    value_next = false;
    if (!piece.starts_with("--")) return std::string(kHidden);
  }
  size_t equals = piece.find('=');
  if (piece.starts_with("-")) {
    std::string_view name = piece.substr(0, equals);
    if (!is_secret_option(name)) return redact("", piece);
    if (equals == std::string_view::npos) {
      value_next = true;
      return std::string(piece);
    }
    return std::string(piece.substr(0, equals + 1)) + std::string(kHidden);
  }
  if (equals != std::string_view::npos && equals > 0 && is_valid_env_name(piece.substr(0, equals))) {
    return std::string(piece.substr(0, equals + 1)) + redact(piece.substr(0, equals), piece.substr(equals + 1));
  }
  return redact("", piece);
}

}  // namespace

bool is_secret_option(std::string_view name) {
  while (name.starts_with('-')) name.remove_prefix(1);
  size_t cut = name.find_last_of("-_");
  std::string last = upper(cut == std::string_view::npos ? name : name.substr(cut + 1));
  if (last.empty() || last.ends_with("TOKENS") || last == "KEYS") return false;  // counts: --max-tokens 512
  return is_secret(last);
}

std::vector<std::string> redact_command(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  bool value_next = false;
  for (const std::string& word : argv) {
    // An argument that is an option, or the value of a secret option given as its own argument, is one piece
    // (`--password=a b`, `--token "a b"`); anything else may be a script, redacted piece by piece.
    if (word.starts_with("-") || (value_next && !word.starts_with("--"))) {
      out.push_back(redact_piece(word, value_next));
      continue;
    }
    std::string redacted;
    size_t pos = 0;
    while (pos < word.size()) {
      size_t end = pos;
      while (end < word.size() && is_space(word[end])) ++end;
      redacted.append(word, pos, end - pos);
      pos = end;
      while (end < word.size() && !is_space(word[end])) ++end;
      if (end > pos) redacted += redact_piece(std::string_view(word).substr(pos, end - pos), value_next);
      pos = end;
    }
    out.push_back(std::move(redacted));
  }
  return out;
}

}  // namespace muster::launch
