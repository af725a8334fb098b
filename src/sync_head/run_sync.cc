#include "sync_head/run_sync.h"

#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>

#include "posix/file.h"
#include "posix/signals.h"
#include "posix/terminal.h"
#include "sync_head/last_sync.h"
#include "sync_head/sync_view.h"

namespace muster::sync_head {
namespace {

// With the star taken for an unchanged source, a node needing more than this is sent to down the chain instead
// (the head's link would carry it once per node): at 1 Gbit/s the chain's extra connecting is a tenth of it.
constexpr uint64_t kStarLimitBytes = 32ull << 20;

Result<SyncReport> run_sync_on_pool(head::AgentPool& pool, const std::vector<std::string>& names,
                                    const SyncRequest& request, const PreparedSource& source, bool verbose) {
  bool live = posix::is_terminal(2) && !request.dry_run;
  bool drew = false;
  ProgressCallback progress;
  if (live) {
    progress = [&](const SyncProgress& p) {
      posix::write_stderr("\r\033[K" + format_progress(p, names));
      drew = true;
    };
  }
  auto report = sync_to_nodes(pool, request, source, progress);
  if (drew) posix::write_stderr("\r\033[K");
  if (!report) return report.error();
  if (report->over_star_limit > 0) return report;  // nothing was done: run_sync goes on with the chain
  if (request.dry_run) {
    fmt::print("{}", format_dry_run(*report, names, request.source, request.destination));
  } else if (verbose || !report->ok()) {
    fmt::print("{}", format_summary(*report, names, request.source, request.destination));
  }
  std::fflush(stdout);
  if (!report->ok()) {
    size_t failed = 0;
    for (const auto& node : report->nodes) failed += node.ok() ? 0 : 1;
    return make_error(ErrorKind::remote, "sync to {} of {} nodes failed (see above); re-run to finish, files "
                                         "already verified are not sent again", failed, names.size());
  }
  return report;
}

}  // namespace

Result<SyncRequest> make_sync_request(const SyncOptions& flags) {
  SyncRequest request;
  if (flags.source.empty()) return make_error(ErrorKind::usage, "muster sync: which directory? (muster sync DIR)");
  request.source = posix::absolute_path(flags.source);
  if (!std::filesystem::is_directory(request.source)) {
    return make_error(ErrorKind::usage, "muster sync: {} is not a directory", request.source);
  }
  if (!flags.to.empty() && flags.to[0] != '/') {
    return make_error(ErrorKind::usage, "muster sync: --to {} must be an absolute path (it is the same on every node)",
                      flags.to);
  }
  request.destination = flags.to.empty() ? request.source : posix::absolute_path(flags.to);
  if (request.destination == "/") return make_error(ErrorKind::usage, "muster sync: refusing to sync into /");
  for (const auto& pattern : flags.excludes) {
    if (auto added = request.rules.add(pattern); !added) return added.error();
  }
  for (const auto& file : flags.exclude_from) {
    auto text = posix::read_text_file(file);
    if (!text) return text.error();
    if (auto added = request.rules.add_file_text(*text, "", file); !added) return added.error();
  }
  request.delete_extraneous = flags.delete_extraneous;
  request.dry_run = flags.dry_run;
  request.compress = !flags.no_compress;
  request.fresh_destination = flags.fresh_destination;
  auto links = parse_link_policy(flags.links);
  if (!links) return links.error();
  request.links = *links;
  return request;
}

Result<SyncReport> run_sync(const SyncOptions& options) {
  auto made = make_sync_request(options);
  if (!made) return made.error();
  SyncRequest& request = *made;
  const head::ConnectOptions& pool_flags = options.connect;
  const std::string& fanout = options.fanout;
  bool verbose = !options.quiet;
  posix::SignalBlock signals;
  transport::TransportKind transport;
  auto nodes = head::select_pool_nodes(pool_flags, transport);
  if (!nodes) return nodes.error();
  std::vector<std::string> names;
  for (const auto& node : *nodes) names.push_back(node.name);
  // chain: a tree of fanout 1 (each node passes the data to the next); star: fanout 0; a number: that fanout.
  size_t tree_fanout = 0;
  if (fanout == "chain" || (fanout == "auto" && nodes->size() >= 3)) {
    tree_fanout = 1;
  } else if (fanout != "star" && fanout != "auto") {
    tree_fanout = static_cast<size_t>(std::stoul(fanout));  // the CLI checked it is a number
  }
  if (tree_fanout > 0 && transport == transport::TransportKind::slurm) {
    if (fanout != "auto") {
      return make_error(ErrorKind::usage, "--fanout {} needs nodes reached over ssh (they ssh to each other)", fanout);
    }
    tree_fanout = 0;
  }
  // The source is scanned before any node is connected: a source that cannot be synced changes nothing there, and
  // `auto` takes the star when the nodes most likely hold this source already (last_sync.h).
  auto source = prepare_source(request);
  if (!source) return source.error();
  std::string record = request.dry_run ? std::string() : last_sync_path(request, names);
  if (fanout == "auto" && tree_fanout == 1 && same_as_last_sync(record, source->digest)) {
    tree_fanout = 0;
    // The nodes may not hold it after all (a node wiped since): more than this for a node, and the chain it is.
    request.star_limit_bytes = kStarLimitBytes;
    if (verbose) {
      fmt::print(stderr, "muster sync: {} is unchanged since the last sync to these nodes: asking each node "
                         "directly (no relay chain)\n", request.source);
    }
  }
  auto sync_over = [&](size_t over_fanout) -> Result<SyncReport> {
    head::ConnectOptions connect = pool_flags;
    connect.fanout = over_fanout;
    connect.fall_back_to_star = fanout == "auto";  // an explicit fanout that cannot be built is an error
    auto pool = head::connect_nodes(connect, *nodes, transport);
    if (!pool) return pool.error();
    for (const auto& note : (*pool)->notes()) {
      fmt::print(stderr, "muster sync: {} (`muster setup ssh` lets the nodes reach each other)\n", note);
    }
    auto report = run_sync_on_pool(**pool, names, request, *source, verbose);
    (*pool)->shutdown(3000);
    return report;
  };
  auto report = sync_over(tree_fanout);
  if (report && report->over_star_limit > 0) {
    if (verbose) {
      fmt::print(stderr, "muster sync: a node needs {} after all: sending down the relay chain\n",
                 format_size(report->over_star_limit));
    }
    request.star_limit_bytes = 0;
    report = sync_over(1);
  }
  if (report) remember_last_sync(record, source->digest);  // every node identical (run_sync_on_pool fails otherwise)
  return report;
}

}  // namespace muster::sync_head
