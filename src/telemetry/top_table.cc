#include "telemetry/top_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

namespace muster::telemetry {
namespace {

constexpr const char* kReverse = "\x1b[7m";
constexpr const char* kRed = "\x1b[31;1m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kReset = "\x1b[0m";

struct Row {
  const nlohmann::json* data;
  bool rank;
  std::string node;  // the node it is (or belongs to)
  std::string name;
};

double field(const nlohmann::json& row, const char* key) {
  auto it = row.find(key);
  if (it == row.end() || !it->is_number()) return NAN;
  return it->get<double>();
}

std::string cell(const nlohmann::json& row, const TopColumn& column, bool is_rank) {
  std::string_view key = column.key;
  if (key == "name") {
    if (is_rank) return fmt::format("  rank {}", row.value("rank", 0));
    return row.value("node", "");
  }
  if (key == "mem") {
    if (is_rank) {
      double rss = field(row, "rss_gib");
      return std::isnan(rss) ? "-" : fmt::format("{:.1f}", rss);
    }
    double used = field(row, "mem_used_gib"), total = field(row, "mem_total_gib");
    return std::isnan(used) ? "-" : fmt::format("{:.0f}/{:.0f}", used, total);
  }
  if (key == "net") {
    double rx = field(row, "net_rx_mbs"), tx = field(row, "net_tx_mbs");
    return std::isnan(rx) ? "-" : fmt::format("{:.1f}/{:.1f}", rx, tx);
  }
  if (key == "disk") {
    double r = field(row, "disk_read_mbs"), w = field(row, "disk_write_mbs");
    return std::isnan(r) ? "-" : fmt::format("{:.1f}/{:.1f}", r, w);
  }
  double value = field(row, column.key);
  if (std::isnan(value)) return "-";
  value *= column.scale;
  if (key == "gap") return fmt::format("{:+.{}f}", value, column.decimals);
  return fmt::format("{:.{}f}", value, column.decimals);
}

double sort_value(const nlohmann::json& row, const TopColumn& column) {
  std::string_view key = column.key;
  if (key == "mem") return std::isnan(field(row, "mem_used_gib")) ? field(row, "rss_gib") : field(row, "mem_used_gib");
  if (key == "net") return field(row, "net_rx_mbs") + field(row, "net_tx_mbs");
  if (key == "disk") return field(row, "disk_read_mbs") + field(row, "disk_write_mbs");
  return field(row, column.key);
}

// Rows in order: by the sort column (unmeasured last), names breaking ties; the name column sorts by name.
void sort_rows(std::vector<const nlohmann::json*>& rows, const TopState& state, bool ranks) {
  const TopColumn& column = top_columns()[state.sort];
  auto name_less = [ranks](const nlohmann::json* a, const nlohmann::json* b) {
    if (ranks) return a->value("rank", 0) < b->value("rank", 0);
    return a->value("node", "") < b->value("node", "");
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const nlohmann::json* a, const nlohmann::json* b) {
    if (state.sort == 0) return state.descending ? name_less(b, a) : name_less(a, b);
    double x = sort_value(*a, column), y = sort_value(*b, column);
    if (std::isnan(x) != std::isnan(y)) return !std::isnan(x);
    if (std::isnan(x) || x == y) return name_less(a, b);
    return state.descending ? x > y : x < y;
  });
}

std::vector<Row> visible_rows(const nlohmann::json& snapshot, const TopState& state) {
  std::vector<const nlohmann::json*> nodes;
  if (snapshot.contains("nodes")) {
    for (const auto& node : snapshot["nodes"]) nodes.push_back(&node);
  }
  sort_rows(nodes, state, false);
  std::vector<Row> rows;
  for (const auto* node : nodes) {
    std::string name = node->value("node", "");
    rows.push_back({node, false, name, name});
    if (!(state.all_expanded || state.expanded.contains(name)) || !node->contains("rank_rows")) continue;
    std::vector<const nlohmann::json*> ranks;
    for (const auto& rank : (*node)["rank_rows"]) ranks.push_back(&rank);
    sort_rows(ranks, state, true);
    for (const auto* rank : ranks) rows.push_back({rank, true, name, fmt::format("rank {}", rank->value("rank", 0))});
  }
  return rows;
}

std::string pad(std::string text, int width, bool left) {
  size_t w = static_cast<size_t>(width);
  if (text.size() > w) text.resize(w);
  return left ? fmt::format("{:<{}}", text, w) : fmt::format("{:>{}}", text, w);
}

std::string fit(std::string line, size_t width) {
  if (width > 0 && line.size() > width) line.resize(width);
  return line;
}

std::string header_line(const nlohmann::json& snapshot) {
  std::string line;
  double rate = field(snapshot, "steps_per_s");
  line += std::isnan(rate) ? "steps/s -" : fmt::format("{:.2f} steps/s", rate);
  if (snapshot.contains("slowest") && snapshot["slowest"].is_object()) {
    const auto& s = snapshot["slowest"];
    double gap = field(s, "gap");
    line += fmt::format("   slowest: rank {} on {} ({:+.0f} % compute per step)", s.value("rank", 0),
                        s.value("node", "?"), std::isnan(gap) ? 0.0 : gap * 100);
  }
  size_t count = snapshot.contains("stragglers") ? snapshot["stragglers"].size() : 0;
  line += count == 0 ? "   no straggler" : fmt::format("   {} straggler{}", count, count == 1 ? "" : "s");
  return line;
}

}  // namespace

const std::vector<TopColumn>& top_columns() {
  static const std::vector<TopColumn> columns = {
      {"NODE/RANK", "name", 16, 0, 1, "name"},
      {"STEP/S", "steps_per_s", 7, 2, 1, "steps per second"},
      {"P50ms", "step_p50_ms", 8, 1, 1, "median step time"},
      {"P95ms", "step_p95_ms", 8, 1, 1, "95th percentile step time"},
      {"COMP%", "compute_share", 6, 0, 100, "compute share of a step (the rest: waiting for other ranks)"},
      {"GAP%", "gap", 6, 0, 100, "compute per step against the median of the other ranks"},
      {"CPU%", "cpu", 5, 0, 1, "node: busy share of all CPUs; rank: its process, % of a core"},
      {"STL%", "steal", 5, 0, 1, "CPU stolen by the hypervisor"},
      {"RUNQ%", "runq", 6, 0, 1, "rank: time runnable but waiting for a CPU"},
      {"THR%", "throttled", 5, 0, 1, "CPU cgroup throttled"},
      {"MEM GiB", "mem", 9, 0, 1, "node: used/total; rank: resident"},
      {"NET MB/s", "net", 11, 1, 1, "the job's interface: rx/tx"},
      {"DISK MB/s", "disk", 11, 1, 1, "read/write"},
      {"GPU%", "gpu_util", 5, 0, 1, "GPU utilisation (mean of the node's GPUs)"},
      {"GMEM", "gpu_mem_used_gib", 6, 0, 1, "GPU memory used, GiB"},
      {"PWR W", "gpu_power_w", 6, 0, 1, "GPU power (mean)"},
      {"TEMP", "gpu_temp_c", 5, 0, 1, "hottest GPU, C"},
      {"SM MHz", "gpu_sm_mhz", 7, 0, 1, "slowest GPU's SM clock"},
  };
  return columns;
}

std::vector<std::string> render_top(const nlohmann::json& snapshot, TopState& state, const TopScreen& screen,
                                    const std::string& title) {
  const auto& columns = top_columns();
  std::vector<std::string> lines;
  auto bold = [&](const std::string& text) { return screen.color ? kBold + text + kReset : text; };
  lines.push_back(bold(fit(title, screen.width)));
  lines.push_back(fit(header_line(snapshot), screen.width));
  if (snapshot.contains("stragglers")) {
    for (const auto& s : snapshot["stragglers"]) {
      double gap = field(s, "gap");
      std::string text = fmt::format("STRAGGLER rank {} on {}: {:+.0f} % compute per step ({:.1f} ms, the others "
                                     "{:.1f} ms): {}",
                                     s.value("rank", 0), s.value("node", "?"), std::isnan(gap) ? 0.0 : gap * 100,
                                     field(s, "compute_ms"), field(s, "median_ms"), s.value("cause", ""));
      text = fit(text, screen.width);
      lines.push_back(screen.color ? kRed + text + kReset : text);
    }
  }
  // Columns that fit the width, in order.
  size_t used = 0, shown = 0;
  for (; shown < columns.size(); ++shown) {
    size_t w = static_cast<size_t>(columns[shown].width) + (shown ? 1 : 0);
    if (screen.width > 0 && used + w > screen.width) break;
    used += w;
  }
  std::string head;
  for (size_t c = 0; c < shown; ++c) {
    std::string title_text = columns[c].title;
    if (c == state.sort) title_text = (state.descending ? "v" : "^") + title_text;
    head += (c ? " " : "") + pad(title_text, columns[c].width, c == 0);
  }
  lines.push_back(screen.color ? kReverse + head + kReset : head);
  auto rows = visible_rows(snapshot, state);
  if (rows.empty()) lines.push_back("(no telemetry yet: the agents send their first figures a second after the start)");
  state.cursor = rows.empty() ? 0 : std::min(state.cursor, rows.size() - 1);
  size_t room = screen.height == 0 ? rows.size() : (screen.height > lines.size() + 1 ? screen.height - lines.size() - 1 : 1);
  if (state.cursor < state.scroll) state.scroll = state.cursor;
  if (state.cursor >= state.scroll + room) state.scroll = state.cursor + 1 - room;
  state.scroll = std::min(state.scroll, rows.size() > room ? rows.size() - room : 0);
  for (size_t i = state.scroll; i < rows.size() && i < state.scroll + room; ++i) {
    const Row& row = rows[i];
    std::string line;
    for (size_t c = 0; c < shown; ++c) {
      std::string text = cell(*row.data, columns[c], row.rank);
      if (c == 0 && !row.rank && row.data->contains("rank_rows")) text = "- " + text;
      else if (c == 0 && !row.rank) text = "+ " + text;
      line += (c ? " " : "") + pad(text, columns[c].width, c == 0);
    }
    bool straggler = row.data->value("straggler", false);
    if (straggler && !screen.color) line.replace(0, std::min<size_t>(line.size(), 1), "*");
    if (screen.color && screen.cursor && i == state.cursor) line = kReverse + line + kReset;
    else if (screen.color && straggler) line = kRed + line + kReset;
    lines.push_back(line);
  }
  if (screen.height > 0 && screen.cursor) lines.push_back(fit(top_help(), screen.width));
  return lines;
}

bool top_key(TopState& state, const std::string& key, const nlohmann::json& snapshot, size_t page) {
  auto rows = visible_rows(snapshot, state);
  size_t last = rows.empty() ? 0 : rows.size() - 1;
  size_t columns = top_columns().size();
  if (key == "q" || key == "Q" || key == "ctrl-c") return false;
  if (key == "up" || key == "k") state.cursor = state.cursor > 0 ? state.cursor - 1 : 0;
  else if (key == "down" || key == "j") state.cursor = std::min(state.cursor + 1, last);
  else if (key == "pgup") state.cursor = state.cursor > page ? state.cursor - page : 0;
  else if (key == "pgdn") state.cursor = std::min(state.cursor + page, last);
  else if (key == "home" || key == "g") state.cursor = 0;
  else if (key == "end" || key == "G") state.cursor = last;
  else if ((key == "enter" || key == " " || key == "right" || key == "left" || key == "e") && !rows.empty()) {
    const std::string& node = rows[std::min(state.cursor, last)].node;
    bool open = state.expanded.contains(node);
    bool want = key == "right" ? true : key == "left" ? false : !open;
    if (want) state.expanded.insert(node);
    else state.expanded.erase(node);
    if (!want) {  // the cursor goes to the node's own row
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].rank && rows[i].node == node) state.cursor = i;
      }
    }
  } else if (key == "a") {
    state.all_expanded = !state.all_expanded;
    if (!state.all_expanded) state.expanded.clear();
  } else if (key == ">" || key == ".") {
    state.sort = (state.sort + 1) % columns;
  } else if (key == "<" || key == ",") {
    state.sort = (state.sort + columns - 1) % columns;
  } else if (key == "r") {
    state.descending = !state.descending;
  } else if (key == "s") {  // the view that answers "who is slow": by gap, largest first
    state.sort = 5;
    state.descending = true;
  } else if (key == "n") {
    state.sort = 0;
    state.descending = false;
  }
  return true;
}

std::string top_help() {
  return "q quit  up/down move  enter expand node  a expand all  </> sort column  r reverse  s slowest first  n by name";
}

}  // namespace muster::telemetry
