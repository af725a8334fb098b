// What `muster top` draws (jobs/top_client.h runs it): a snapshot (live_view.h) as screen lines, a row per node
// and, under an expanded node, a row per rank; stragglers marked; sorted by a column; the cursor's row in reverse
// video. And what a key does to the view. Pure: the client owns the terminal.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace muster::telemetry {

struct TopState {
  size_t sort = 0;          // index into top_columns(); 0: by name
  bool descending = false;
  std::set<std::string> expanded;  // nodes whose ranks are shown
  bool all_expanded = false;
  size_t cursor = 0;        // index into the visible rows
  size_t scroll = 0;        // first visible row on screen
};

struct TopColumn {
  const char* title;
  const char* key;      // the field in a node's or rank's row ("name": the row's name)
  int width;
  int decimals;
  double scale;         // shown value = field x scale
  const char* help;
};
const std::vector<TopColumn>& top_columns();

struct TopScreen {
  size_t width = 120;
  size_t height = 40;  // 0: as many lines as there are rows (--once)
  bool color = false;
  bool cursor = true;  // draw the cursor (interactive)
};

// The screen's lines (no line ends). `title`: the first line (job, attempt, refresh time).
std::vector<std::string> render_top(const nlohmann::json& snapshot, TopState& state, const TopScreen& screen,
                                    const std::string& title);

// A key from the terminal ("up", "down", "enter", "left", "right", "pgup", "pgdn", or the character): returns
// false for quit ("q", Ctrl-C).
bool top_key(TopState& state, const std::string& key, const nlohmann::json& snapshot, size_t page);

// The key legend, one line.
std::string top_help();

}  // namespace muster::telemetry
