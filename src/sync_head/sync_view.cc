#include "sync_head/sync_view.h"

#include <algorithm>

#include <fmt/core.h>

namespace muster::sync_head {
namespace {

double seconds(int64_t ms) { return static_cast<double>(ms) / 1000.0; }

std::string format_rate(uint64_t bytes, int64_t ms) {
  if (ms <= 0) return "-";
  return format_size(static_cast<uint64_t>(static_cast<double>(bytes) * 1000.0 / static_cast<double>(ms))) + "/s";
}

size_t name_width(const std::vector<std::string>& names) {
  size_t width = 4;
  for (const auto& name : names) width = std::max(width, name.size());
  return width;
}

}  // namespace

std::string format_size(uint64_t bytes) {
  if (bytes < 1000) return fmt::format("{} B", bytes);
  const char* units[] = {"kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes) / 1000.0;
  int unit = 0;
  while (value >= 1000.0 && unit < 3) {
    value /= 1000.0;
    ++unit;
  }
  if (value >= 100.0 || unit == 0) return fmt::format("{:.1f} {}", value, units[unit]);
  return fmt::format("{:.2f} {}", value, units[unit]);
}

std::string format_link_notes(const SyncReport& report) {
  std::string out;
  const auto& links = report.links;
  if (report.source_hardlinks > 0) {
    out += fmt::format("hard links: {} name{} of files that have another name in the tree, linked on the nodes "
                       "(each file's content moves once)\n", report.source_hardlinks,
                       report.source_hardlinks == 1 ? "" : "s");
  }
  if (links.kept_leaving > 0) {
    std::string where;
    for (const auto& dir : links.kept_target_dirs) where += (where.empty() ? "" : ", ") + dir;
    out += fmt::format("links leaving the tree: {}, copied as links; what they point to is node-local: each node "
                       "needs its own{} (`muster doctor --path DIR` compares it across nodes)\n", links.kept_leaving,
                       where.empty() ? "" : " (in " + where + ")");
  }
  if (links.copied > 0) {
    out += fmt::format("links leaving the tree: {} replaced by what they point to (--links copy-target)\n",
                       links.copied);
  }
  if (links.skipped > 0) out += fmt::format("links leaving the tree: {} left out (--links skip)\n", links.skipped);
  return out;
}

std::string format_progress(const SyncProgress& p, const std::vector<std::string>& names) {
  uint64_t done = 0;
  size_t slowest = 0;
  uint64_t slowest_left = 0;
  for (size_t i = 0; i < p.node_total.size(); ++i) {
    done += p.node_done[i];
    uint64_t left = p.node_total[i] - p.node_done[i];
    if (left > slowest_left) slowest_left = left, slowest = i;
  }
  std::string line = fmt::format("sync  {} / {}", format_size(done), format_size(p.total_bytes));
  if (p.total_bytes > 0) line += fmt::format("  {:3d}%", static_cast<int>(done * 100 / p.total_bytes));
  line += "  " + format_rate(done, p.elapsed_ms);
  if (done > 0 && done < p.total_bytes && p.elapsed_ms > 0) {
    double rate = static_cast<double>(done) / static_cast<double>(p.elapsed_ms);
    line += fmt::format("  ETA {:.0f}s", static_cast<double>(p.total_bytes - done) / rate / 1000.0);
  }
  if (p.node_total.size() > 1 && slowest_left > 0 && slowest < names.size()) {
    // Lag: how far the slowest node is behind the average.
    uint64_t mean_left = (p.total_bytes - done) / p.node_total.size();
    if (slowest_left > mean_left) {
      line += fmt::format("  slowest {} (-{})", names[slowest], format_size(slowest_left - mean_left));
    }
  }
  return line;
}

std::string format_summary(const SyncReport& report, const std::vector<std::string>& names,
                           const std::string& source, const std::string& destination) {
  std::string out = fmt::format("synced {} -> {} on {} node{}: {} files, {}\n", source, destination, names.size(),
                                names.size() == 1 ? "" : "s", report.source_files, format_size(report.source_bytes));
  size_t width = name_width(names);
  out += fmt::format("  {:<{}}  {:>7}  {:>10}  {:>10}  {:>7}  {:>7}  {:>7}  {}\n", "node", width, "files", "bytes",
                     "on wire", "copied", "removed", "time", "status");
  uint64_t moved_max = 0;
  for (size_t i = 0; i < report.nodes.size() && i < names.size(); ++i) {
    const auto& node = report.nodes[i];
    moved_max = std::max(moved_max, node.bytes_done);
    std::string status = node.ok() ? (node.plan.empty() ? "up to date" : "identical") : "FAILED";
    out += fmt::format("  {:<{}}  {:>7}  {:>10}  {:>10}  {:>7}  {:>7}  {:>6.1f}s  {}\n", names[i], width,
                       node.files_done, format_size(node.bytes_done), format_size(node.wire_bytes),
                       node.plan.copies.size(), node.plan.remove.size(), seconds(node.finished_ms), status);
    if (!node.error.empty()) out += fmt::format("      {}\n", node.error);
    for (const auto& error : node.file_errors) out += fmt::format("      {}\n", error);
  }
  out += format_link_notes(report);
  out += fmt::format("scan {:.2f}s (hashed {}), transfer {:.2f}s", seconds(report.scan_ms),
                     format_size(report.hashed_bytes), seconds(report.transfer_ms));
  if (moved_max > 0) {
    out += fmt::format(", {} per node", format_rate(moved_max, report.transfer_ms));
    out += fmt::format(", {} read once for all nodes", format_size(report.unique_bytes));
    std::string how = "to each node";
    if (report.tree_depth > 1 && report.head_connections == 1 && report.tree_depth == report.nodes.size()) {
      how = "relay chain: each node passes it on to the next";
    } else if (report.tree_depth > 1) {
      how = fmt::format("over {} connections, each node passing it on to those below it ({} levels)",
                        report.head_connections, report.tree_depth);
    }
    out += fmt::format("; the head sent {} ({})", format_size(report.head_wire_bytes), how);
  }
  out += "\n";
  if (moved_max > 0) out += fmt::format("file data over {}\n", report.data_path.empty() ? "ssh" : report.data_path);
  uint64_t resent = 0;
  for (const auto& node : report.nodes) resent += node.files_resent;
  if (resent > 0) {
    out += fmt::format("{} file{} sent again (content that did not verify on a node, or in flight when a data link "
                       "broke)\n", resent, resent == 1 ? "" : "s");
  }
  return out;
}

std::string format_dry_run(const SyncReport& report, const std::vector<std::string>& names,
                           const std::string& source, const std::string& destination) {
  std::string out = fmt::format("dry run: {} -> {} ({} files, {}); nothing was changed\n", source, destination,
                                report.source_files, format_size(report.source_bytes));
  out += format_link_notes(report);
  for (size_t i = 0; i < report.nodes.size() && i < names.size(); ++i) {
    const auto& node = report.nodes[i];
    const auto& plan = node.plan;
    if (!node.error.empty()) {
      out += fmt::format("{}: cannot sync: {}\n", names[i], node.error);
      continue;
    }
    if (plan.empty()) {
      out += fmt::format("{}: up to date\n", names[i]);
      continue;
    }
    auto plural = [](size_t n) { return n == 1 ? "" : "s"; };
    std::string copies = plan.copies.empty() ? "" : fmt::format(", {} to copy there", plan.copies.size());
    std::string hard = plan.hardlinks.empty() ? ""
                                              : fmt::format(", {} hard link{}", plan.hardlinks.size(),
                                                            plural(plan.hardlinks.size()));
    size_t meta = plan.touch.size() + plan.dir_meta.size();
    out += fmt::format("{}: {} file{} to send ({}){}, {} to delete, {} link{}{}, {} metadata change{}\n", names[i],
                       plan.send.size(), plural(plan.send.size()), format_size(plan.send_bytes), copies,
                       plan.remove.size(), plan.links.size(), plural(plan.links.size()), hard, meta, plural(meta));
    for (const auto& path : plan.remove) out += fmt::format("  - {}\n", path);
    for (const auto& dir : plan.make_dirs) out += fmt::format("  d {}/\n", dir.path);
    for (const auto& file : plan.send) out += fmt::format("  + {} ({})\n", file.path, format_size(file.size));
    for (const auto& copy : plan.copies) out += fmt::format("  c {} (from {} on the node)\n", copy.path, copy.target);
    for (const auto& link : plan.links) out += fmt::format("  l {} -> {}\n", link.path, link.target);
    for (const auto& link : plan.hardlinks) out += fmt::format("  h {} => {}\n", link.path, link.target);
    for (const auto& file : plan.touch) out += fmt::format("  m {}\n", file.path);
  }
  return out;
}

}  // namespace muster::sync_head
