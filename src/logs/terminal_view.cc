#include "logs/terminal_view.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "logs/columns.h"

namespace muster::logs {
namespace {

constexpr std::string_view kEraseLine = "\r\x1b[K";
constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
// Cyan, yellow, green, magenta, blue, then their bright forms; no red, which reads as an error.
constexpr std::array<std::string_view, 10> kPalette = {"\x1b[36m", "\x1b[33m", "\x1b[32m", "\x1b[35m",
                                                       "\x1b[34m", "\x1b[96m", "\x1b[93m", "\x1b[92m",
                                                       "\x1b[95m", "\x1b[94m"};

std::string_view node_color(int node_rank) {
  size_t index = static_cast<size_t>(node_rank < 0 ? -node_rank : node_rank) % kPalette.size();
  return kPalette[index];
}

}  // namespace

TerminalView::TerminalView(TerminalOptions options) : options_(std::move(options)) {
  if (!options_.is_tty) options_.color = false;
}

void TerminalView::line(const Source& source, std::string_view text) {
  if (!options_.ranks(source.rank)) return;
  if (active_progress_ > 0) {  // the map lookup only while some rank shows a progress
    auto it = progress_.find(source.rank);
    if (it != progress_.end() && it->second.active && it->second.source.stream == source.stream) {
      end_progress(it->second, /*keep_on_screen=*/!options_.is_tty);
    }
  }
  print_line(source, text);
  redraw_status();
}

void TerminalView::progress(const Source& source, std::string_view text, int64_t now_ms) {
  if (!options_.ranks(source.rank)) return;
  RankProgress& entry = progress_[source.rank];
  if (!entry.active) ++active_progress_;
  entry.source = source;
  entry.text.assign(text);
  entry.active = true;
  entry.unshown = true;
  if (options_.is_tty) {
    redraw_status();
  } else if (!entry.ever_shown || now_ms - entry.last_shown_ms >= options_.progress_interval_ms) {
    show_progress(entry, now_ms);
  }
}

void TerminalView::end_of_stream(const Source& source) {
  if (!options_.ranks(source.rank)) return;
  auto it = progress_.find(source.rank);
  if (it == progress_.end() || !it->second.active || it->second.source.stream != source.stream) return;
  end_progress(it->second, /*keep_on_screen=*/true);
  redraw_status();
}

void TerminalView::notice(std::string_view text) {
  print_notice(text);
  redraw_status();
}

void TerminalView::tick(int64_t now_ms) {
  if (options_.is_tty) return;
  for (auto& [rank, entry] : progress_) {
    if (entry.active && entry.unshown && now_ms - entry.last_shown_ms >= options_.progress_interval_ms) {
      show_progress(entry, now_ms);
    }
  }
}

void TerminalView::finish() {
  for (auto& [rank, entry] : progress_) {
    if (entry.active) end_progress(entry, /*keep_on_screen=*/true);
  }
  if (dropped_ > 0) report_dropped();
  erase_status();
}

void TerminalView::consumed(size_t n) {
  queue_.consumed(n);
  if (dropping_ && queue_.size() < options_.max_pending_bytes / 2) {
    report_dropped();
    redraw_status();
  }
}

void TerminalView::print_line(const Source& source, std::string_view text) {
  const std::string& prefix = colored_prefix(source);
  if (!admit(prefix.size() + text.size() + 1)) return;
  erase_status();
  queue_.append(prefix);
  queue_.append(text);
  queue_.append("\n");
}

void TerminalView::print_notice(std::string_view text) {
  erase_status();
  scratch_.clear();
  if (options_.color) scratch_.append(kBold);
  scratch_.append(text);
  if (options_.color) scratch_.append(kReset);
  scratch_ += '\n';
  queue_.append(scratch_);
}

void TerminalView::show_progress(RankProgress& entry, int64_t now_ms) {
  print_line(entry.source, entry.text);
  entry.unshown = false;
  entry.ever_shown = true;
  entry.last_shown_ms = now_ms;
}

// The rank's progress is over. keep_on_screen: leave its final text as a line where it is not already
// (on a TTY the status line goes away; elsewhere only if the interval held it back).
void TerminalView::end_progress(RankProgress& entry, bool keep_on_screen) {
  if (keep_on_screen && (options_.is_tty || entry.unshown)) print_line(entry.source, entry.text);
  entry.active = false;
  entry.unshown = false;
  entry.text.clear();
  --active_progress_;
}

bool TerminalView::admit(size_t bytes) {
  if (!dropping_ && queue_.size() + bytes > options_.max_pending_bytes) dropping_ = true;
  if (dropping_) ++dropped_;
  return !dropping_;
}

void TerminalView::report_dropped() {
  dropping_ = false;
  if (dropped_ == 0) return;
  std::string text =
      fmt::format("muster: {} line{} not shown (terminal too slow)", dropped_, dropped_ == 1 ? "" : "s");
  if (!options_.log_dir.empty()) text += fmt::format("; full output in {}", options_.log_dir);
  dropped_ = 0;
  print_notice(text);
}

const std::string& TerminalView::colored_prefix(const Source& source) {
  int64_t key = int64_t{source.rank} * 4 + source.stream;
  if (last_prefix_ && key == last_prefix_key_) return *last_prefix_;  // lines come in runs of one source
  auto [it, inserted] = prefixes_.try_emplace(key);
  if (inserted) {
    std::string plain = options_.prefix.render(source);
    it->second = options_.color ? fmt::format("{}{}{}", node_color(source.node_rank), plain, kReset) : plain;
  }
  last_prefix_key_ = key;
  last_prefix_ = &it->second;  // unordered_map never moves its elements
  return it->second;
}

void TerminalView::set_job_status(std::string text) {
  if (text == job_status_) return;
  job_status_ = std::move(text);
  redraw_status();
}

std::string TerminalView::render_status() {
  if (dropping_) return {};
  if (active_progress_ == 0) {
    if (job_status_.empty()) return {};
    std::string status = "muster: " + job_status_;
    if (options_.width > 0) status.resize(fit_columns(status, options_.width));
    return options_.color ? std::string(kBold) + status + std::string(kReset) : status;
  }
  const RankProgress* shown = nullptr;
  for (const auto& [rank, entry] : progress_) {
    if (entry.active) {
      shown = &entry;
      break;
    }
  }
  size_t others = active_progress_ - 1;
  std::string suffix = others == 0 ? "" : fmt::format(" (+{} rank{})", others, others == 1 ? "" : "s");
  std::string prefix = options_.prefix.render(shown->source);
  std::string_view text = shown->text;
  if (options_.width > 0) {
    size_t room = options_.width;
    prefix.resize(fit_columns(prefix, room));
    room -= display_columns(prefix);
    if (display_columns(suffix) <= room) {
      room -= display_columns(suffix);
    } else {
      suffix.clear();
    }
    text = text.substr(0, fit_columns(text, room));
  }
  std::string status;
  if (options_.color) status.append(node_color(shown->source.node_rank));
  status.append(prefix);
  if (options_.color) status.append(kReset);
  status.append(text);
  if (text.find('\x1b') != std::string_view::npos) status.append(kReset);
  status.append(suffix);
  if (!job_status_.empty()) {
    std::string job = " | " + job_status_;
    size_t used = display_columns(prefix) + display_columns(text) + display_columns(suffix);
    if (options_.width == 0 || used + display_columns(job) <= options_.width) status.append(job);
  }
  return status;
}

void TerminalView::erase_status() {
  if (!status_on_screen_) return;
  if (!queue_.retract()) queue_.append(kEraseLine);
  status_on_screen_ = false;
}

void TerminalView::redraw_status() {
  if (!options_.is_tty) return;
  std::string status = render_status();
  if (status_on_screen_ && status == drawn_status_) return;
  erase_status();
  if (status.empty()) return;
  queue_.append_retractable(status);
  status_on_screen_ = true;
  drawn_status_ = std::move(status);
}

}  // namespace muster::logs
