#include "exec/line_diff.h"

#include <algorithm>
#include <vector>

#include <fmt/core.h>

#include "util/text.h"

namespace muster::exec {
namespace {

enum class Op : char { same = ' ', removed = '-', added = '+' };

struct Edit {
  Op op;
  std::string_view line;
};

using Lines = std::vector<std::string_view>;

// The most differences Myers' search looks for before it gives up on a line-level diff (its trace grows as the
// square of this).
constexpr int kMaxDifferences = 1000;

void whole_replacement(const Lines& a, const Lines& b, std::vector<Edit>& edits) {
  for (auto line : a) edits.push_back({Op::removed, line});
  for (auto line : b) edits.push_back({Op::added, line});
}

// Myers' O(ND) shortest edit script between a and b (no common first or last line), or false past kMaxDifferences.
bool shortest_edits(const Lines& a, const Lines& b, std::vector<Edit>& edits) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  const int limit = std::min(n + m, kMaxDifferences);
  const int offset = limit + 1;
  std::vector<int> v(2 * static_cast<size_t>(limit) + 3, 0);
  std::vector<std::vector<int>> trace;
  for (int d = 0; d <= limit; ++d) {
    trace.push_back(v);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x < n || y < m) continue;
      // Walk back through the trace, from the end to the start.
      std::vector<Edit> reversed;
      for (int step = d; step > 0; --step) {
        const auto& before = trace[step];
        int here = x - y;
        bool down = here == -step || (here != step && before[offset + here - 1] < before[offset + here + 1]);
        int prev_k = down ? here + 1 : here - 1;
        int prev_x = before[offset + prev_k], prev_y = prev_x - prev_k;
        while (x > prev_x && y > prev_y) reversed.push_back({Op::same, a[--x]}), --y;
        if (down) reversed.push_back({Op::added, b[prev_y]});
        else reversed.push_back({Op::removed, a[prev_x]});
        x = prev_x, y = prev_y;
      }
      while (x > 0 && y > 0) reversed.push_back({Op::same, a[--x]}), --y;
      edits.insert(edits.end(), reversed.rbegin(), reversed.rend());
      return true;
    }
  }
  return false;
}

std::vector<Edit> edit_script(const Lines& a, const Lines& b, size_t max_lines) {
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  std::vector<Edit> edits;
  for (size_t i = 0; i < head; ++i) edits.push_back({Op::same, a[i]});
  Lines middle_a(a.begin() + static_cast<long>(head), a.end() - static_cast<long>(tail));
  Lines middle_b(b.begin() + static_cast<long>(head), b.end() - static_cast<long>(tail));
  bool bounded = a.size() <= max_lines && b.size() <= max_lines;
  if (!bounded || !shortest_edits(middle_a, middle_b, edits)) whole_replacement(middle_a, middle_b, edits);
  for (size_t i = a.size() - tail; i < a.size(); ++i) edits.push_back({Op::same, a[i]});
  return edits;
}

// difflib's ranges: "start,length", "start" for one line, "start-1,0" for none.
std::string range(size_t start, size_t length) {
  if (length == 1) return std::to_string(start + 1);
  if (length == 0) return fmt::format("{},0", start);
  return fmt::format("{},{}", start + 1, length);
}

// One hunk: the edits [begin, end), which start at line `a_line` of a and `b_line` of b (0-based).
std::string hunk(const std::vector<Edit>& edits, size_t begin, size_t end, size_t a_line, size_t b_line) {
  size_t a_count = 0, b_count = 0;
  std::string body;
  for (size_t i = begin; i < end; ++i) {
    if (edits[i].op != Op::added) ++a_count;
    if (edits[i].op != Op::removed) ++b_count;
    body += static_cast<char>(edits[i].op);
    body += edits[i].line;
    body += '\n';
  }
  return fmt::format("@@ -{} +{} @@\n", range(a_line, a_count), range(b_line, b_count)) + body;
}

}  // namespace

std::string unified_diff(std::string_view from, std::string_view to, std::string_view from_label,
                         std::string_view to_label, size_t context, size_t max_lines) {
  if (from == to) return "";
  auto edits = edit_script(split_lines(from), split_lines(to), max_lines);
  std::string out = fmt::format("--- {}\n+++ {}\n", from_label, to_label);
  // Line numbers before each edit.
  std::vector<size_t> a_at(edits.size() + 1, 0), b_at(edits.size() + 1, 0);
  for (size_t i = 0; i < edits.size(); ++i) {
    a_at[i + 1] = a_at[i] + (edits[i].op != Op::added);
    b_at[i + 1] = b_at[i] + (edits[i].op != Op::removed);
  }
  size_t i = 0;
  while (i < edits.size()) {
    while (i < edits.size() && edits[i].op == Op::same) ++i;
    if (i == edits.size()) break;
    size_t begin = i >= context ? i - context : 0;
    size_t last_change = i;
    size_t j = i;
    while (j < edits.size()) {
      if (edits[j].op != Op::same) last_change = j;
      else if (j - last_change > 2 * context) break;
      ++j;
    }
    size_t end = std::min(edits.size(), last_change + 1 + context);
    out += hunk(edits, begin, end, a_at[begin], b_at[begin]);
    i = end;
  }
  return out;
}

}  // namespace muster::exec
