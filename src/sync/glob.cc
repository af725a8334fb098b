#include "sync/glob.h"

#include <array>
#include <cctype>
#include <unordered_set>

namespace muster::sync {
namespace {

struct NamedClass {
  std::string_view name;
  int (*test)(int);
};

constexpr std::array<NamedClass, 12> kNamedClasses{{
    {"alnum", [](int c) { return std::isalnum(c); }},
    {"alpha", [](int c) { return std::isalpha(c); }},
    {"blank", [](int c) { return std::isblank(c); }},
    {"cntrl", [](int c) { return std::iscntrl(c); }},
    {"digit", [](int c) { return std::isdigit(c); }},
    {"graph", [](int c) { return std::isgraph(c); }},
    {"lower", [](int c) { return std::islower(c); }},
    {"print", [](int c) { return std::isprint(c); }},
    {"punct", [](int c) { return std::ispunct(c); }},
    {"space", [](int c) { return std::isspace(c); }},
    {"upper", [](int c) { return std::isupper(c); }},
    {"xdigit", [](int c) { return std::isxdigit(c); }},
}};

// A bracket class starting at pattern[start] == '['. `end` becomes the index just past its ']'.
struct ClassMatch {
  bool valid = false;    // false: unterminated or an unknown [:name:]
  bool matches = false;  // whether `c` is in the class
  size_t end = 0;
};

// Matches `[:name:]` at pattern[i]; returns the index past it, or 0 when it is not a named class.
size_t named_class(std::string_view pattern, size_t i, unsigned char c, bool& matched, bool& known) {
  if (i + 1 >= pattern.size() || pattern[i] != '[' || pattern[i + 1] != ':') return 0;
  size_t close = pattern.find(":]", i + 2);
  if (close == std::string_view::npos) return 0;
  std::string_view name = pattern.substr(i + 2, close - i - 2);
  known = false;
  for (const auto& named : kNamedClasses) {
    if (named.name == name) {
      known = true;
      matched = named.test(c) != 0;
    }
  }
  return close + 2;
}

ClassMatch match_class(std::string_view pattern, size_t start, unsigned char c) {
  ClassMatch out;
  size_t i = start + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool first = true;
  bool hit = false;
  while (i < pattern.size()) {
    if (pattern[i] == ']' && !first) {
      out.valid = true;
      out.matches = (hit != negate) && c != '/';
      out.end = i + 1;
      return out;
    }
    first = false;
    bool named_hit = false, known = true;
    if (size_t past = named_class(pattern, i, c, named_hit, known); past != 0) {
      if (!known) return out;
      hit = hit || named_hit;
      i = past;
      continue;
    }
    unsigned char low = static_cast<unsigned char>(pattern[i]);
    if (low == '\\') {
      if (++i >= pattern.size()) return out;
      low = static_cast<unsigned char>(pattern[i]);
    }
    unsigned char high = low;
    ++i;
    if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
      ++i;
      high = static_cast<unsigned char>(pattern[i]);
      if (high == '\\') {
        if (++i >= pattern.size()) return out;
        high = static_cast<unsigned char>(pattern[i]);
      }
      ++i;
    }
    if (low <= c && c <= high) hit = true;
  }
  return out;  // unterminated
}

// Whether pattern[p] starts a '**' that is a whole component.
bool double_star_component(std::string_view pattern, size_t p) {
  return pattern.compare(p, 2, "**") == 0 && (p == 0 || pattern[p - 1] == '/') &&
         (p + 2 == pattern.size() || pattern[p + 2] == '/');
}

// Whether pattern[p] (not a '*') matches the path character `c`; `next` becomes the pattern index after it.
bool char_matches(std::string_view pattern, size_t p, unsigned char c, size_t& next) {
  char pc = pattern[p];
  if (pc == '?') {
    next = p + 1;
    return c != '/';
  }
  if (pc == '[') {
    ClassMatch cls = match_class(pattern, p, c);
    next = cls.end;
    return cls.valid && cls.matches;
  }
  if (pc == '\\') {
    if (++p >= pattern.size()) return false;
    pc = pattern[p];
  }
  next = p + 1;
  return static_cast<unsigned char>(pc) == c;
}

// (pattern index after a '**/', path index) pairs already known not to match: each is tried once, so many
// '**' components cost a product of their positions, never an exponential (`**/**/**/…` found by fuzzing).
using Failed = std::unordered_set<uint64_t>;

// Single '*'s backtrack to the last one only (a '*' never crosses '/', and a '/' in the pattern can only meet
// the next '/' of the path, so earlier ones are settled): linear per '**' alternative.
bool match_from(std::string_view pattern, size_t p, std::string_view path, size_t s, Failed& failed) {
  constexpr size_t kNone = std::string_view::npos;
  size_t star_p = kNone, star_s = 0;
  while (true) {
    if (p < pattern.size() && pattern[p] == '*') {
      if (double_star_component(pattern, p)) {
        // Trailing '**': everything below what came before (a lone '**' matches anything).
        if (p + 2 == pattern.size()) return p == 0 || s < path.size();
        // '**/': zero or more whole directories, then the rest at a component start.
        for (size_t at = s;;) {
          uint64_t key = (static_cast<uint64_t>(p + 3) << 32) | at;
          if (!failed.count(key)) {
            if (match_from(pattern, p + 3, path, at, failed)) return true;
            failed.insert(key);
          }
          size_t slash = path.find('/', at);
          if (slash == std::string_view::npos) return false;
          at = slash + 1;
        }
      }
      while (p < pattern.size() && pattern[p] == '*') ++p;  // a run of '*' inside a component is one '*'
      star_p = p;
      star_s = s;
      continue;
    }
    size_t next = 0;
    if (p < pattern.size() && s < path.size() &&
        char_matches(pattern, p, static_cast<unsigned char>(path[s]), next)) {
      p = next;
      ++s;
      continue;
    }
    if (p == pattern.size() && s == path.size()) return true;
    if (star_p == kNone || star_s >= path.size() || path[star_s] == '/') return false;
    p = star_p;  // let the last '*' take one more character
    s = ++star_s;
  }
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  Failed failed;
  return match_from(pattern, 0, path, 0, failed);
}

std::optional<std::string> glob_syntax_error(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (i + 1 == pattern.size()) return std::string("a trailing '\\' escapes nothing");
      ++i;
    } else if (pattern[i] == '[') {
      ClassMatch cls = match_class(pattern, i, 'a');
      if (!cls.valid) return std::string("unterminated '[' (or an unknown [:class:]); write '\\[' for a literal '['");
      i = cls.end - 1;
    }
  }
  return std::nullopt;
}

}  // namespace muster::sync
