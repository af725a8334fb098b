// Which paths `muster sync` leaves out: `--exclude PATTERN` flags and `.gitignore`-style ignore files.
//
// Pattern syntax is gitignore's (git-scm.com/docs/gitignore), evaluated on paths relative to the sync root:
//   - blank lines and lines starting with '#' are ignored; trailing unescaped spaces are dropped;
//   - a leading '!' negates (re-includes); a later matching rule wins over an earlier one;
//   - a trailing '/' matches directories only;
//   - a pattern with a '/' at its start or middle is anchored to the directory of its source (the root for
//     --exclude, the ignore file's directory otherwise); without one it matches the name at any depth below;
//   - '*' and '?' do not cross '/', '[...]' classes, '**' as a whole component matches zero or more
//     directories ('**/x', 'a/**/b', 'x/**'); '\' escapes the next character.
// As in git, a path inside an excluded directory stays excluded even if a later rule negates the path itself
// (callers do not descend into excluded directories).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::sync {

class ExcludeRules {
 public:
  // `base`: the directory (relative to the root, "" for the root) that anchors the pattern.
  // Returns an error for a malformed pattern (e.g. an unterminated '['), naming `source`.
  Result<void> add(std::string_view pattern, std::string_view base = "", std::string_view source = "--exclude");
  // Adds every line of an ignore file's text; errors name `source:line`. `in_tree`: a .musterignore met in the
  // tree, whose rules rank below every rule given on the command line (--exclude, --exclude-from), as git
  // ranks command-line patterns above .gitignore files; among themselves later rules still win.
  Result<void> add_file_text(std::string_view text, std::string_view base, std::string_view source,
                             bool in_tree = false);

  // Whether `path` (relative to the root, no leading '/') is excluded; `is_dir` says whether it is a directory.
  bool excluded(std::string_view path, bool is_dir) const;

  bool empty() const { return rules_.empty(); }

  // A lossless text form (one rule per element) so the head can send its rules to the agents, and back.
  std::vector<std::string> serialize() const;
  static Result<ExcludeRules> deserialize(const std::vector<std::string>& lines);

  struct Rule {
    std::string base;     // anchoring directory, relative to the root
    std::string pattern;  // without the leading '!' and trailing '/'
    bool negate = false;
    bool dir_only = false;
    bool anchored = false;
  };

 private:
  Result<void> add_rule(std::string_view pattern, std::string_view base, std::string_view source, bool in_tree);

  std::vector<Rule> rules_;  // the in-tree rules first, then the command line's
  size_t in_tree_ = 0;       // how many of rules_ come from files in the tree
};

// The ignore-file name scan_tree reads in every directory it visits (rules apply to that directory and below,
// added as the walk meets them), unless the caller turns it off.
inline constexpr std::string_view kIgnoreFileName = ".musterignore";

}  // namespace muster::sync
