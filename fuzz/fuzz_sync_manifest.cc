// libFuzzer target for what a sync peer sends (src/sync): the manifest's wire form and the exclude rules, plus
// the glob matcher those rules run.
//
// Checked properties, any violation aborts:
// - nothing crashes, reads out of bounds, allocates without bound or backtracks without bound;
// - entries that decode re-encode to the very same bytes, with safe, strictly sorted paths, hard links to
//   earlier paths and copies from other safe paths;
// - exclude rules that deserialize serialize back to the same lines; rules added from text survive the
//   serialize/deserialize round trip with the same decisions.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "sync/exclude.h"
#include "sync/glob.h"
#include "sync/manifest.h"

namespace {

using namespace muster::sync;

void check_entries(std::string_view input) {
  auto decoded = decode_entries(input);
  if (!decoded) return;
  FUZZ_CHECK(encode_entries(*decoded) == input);
  for (size_t i = 0; i < decoded->size(); ++i) {
    const Entry& entry = (*decoded)[i];
    FUZZ_CHECK(is_safe_relative_path(entry.path));
    FUZZ_CHECK(i == 0 || (*decoded)[i - 1].path < entry.path);
    if (entry.kind == EntryKind::hardlink) FUZZ_CHECK(is_safe_relative_path(entry.target) && entry.target < entry.path);
    if (entry.kind == EntryKind::copy) FUZZ_CHECK(is_safe_relative_path(entry.target) && entry.target != entry.path);
  }
}

std::vector<std::string> split_lines(std::string_view input) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i <= input.size(); ++i) {
    if (i == input.size() || input[i] == '\n') {
      lines.emplace_back(input.substr(start, i - start));
      start = i + 1;
    }
  }
  return lines;
}

void check_rules(std::string_view input) {
  auto lines = split_lines(input);
  if (auto rules = ExcludeRules::deserialize(lines)) FUZZ_CHECK(rules->serialize() == lines);

  // First line: a path to test; the rest: an ignore file in directory "d".
  std::string_view path = input.substr(0, input.find('\n'));
  std::string_view text = input.substr(path.size() < input.size() ? path.size() + 1 : input.size());
  ExcludeRules rules;
  if (!rules.add_file_text(text, "d", "fuzz")) return;
  auto again = ExcludeRules::deserialize(rules.serialize());
  FUZZ_CHECK(again.has_value());
  for (bool is_dir : {false, true}) {
    FUZZ_CHECK(again->excluded(path, is_dir) == rules.excluded(path, is_dir));
  }
  std::string pattern(text.substr(0, text.find('\n')));
  (void)glob_match(pattern, path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_entries(input);
  check_rules(input);
  return 0;
}
