// `muster sync DIR [--to DEST]`: makes DIR identical at the same path (or DEST) on every node
// (head/sync_push.h does the work; cli/sync_command.h is shared with `launch --sync`).
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/node_pool.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cli/sync_command.h"
#include "posix/signals.h"

namespace muster::cli {

int run_sync(const std::vector<std::string>& args) {
  auto app = make_app("sync", "Copy a directory to the same path on every node: only what differs moves, each file "
                              "is verified by hash before it replaces the old one, the source is read once for all "
                              "nodes. Leave paths out with --exclude or .musterignore files (gitignore syntax).");
  PoolFlags pool_flags;
  SyncFlags flags;
  app->add_option("DIR", flags.source, "the directory to copy")->required();
  app->add_option("--to", flags.to, "absolute destination on every node (default: DIR's absolute path)");
  app->add_option("--exclude", flags.excludes, "leave out paths matching PATTERN (gitignore syntax; repeatable)");
  app->add_option("--exclude-from", flags.exclude_from, "read exclude patterns from FILE (e.g. .gitignore)");
  app->add_flag("--delete", flags.delete_extraneous,
                "delete files on the nodes that DIR does not have (only inside the destination; excluded paths are kept)");
  app->add_flag("-n,--dry-run", flags.dry_run, "list what would change on each node; change nothing");
  app->add_flag("--no-compress", flags.no_compress, "send file data as is (default: zstd where it helps)");
  app->add_flag("-q,--quiet", flags.quiet, "print nothing when every node ends up identical");
  app->add_option("--fanout", flags.fanout,
                  "chain: the data leaves here once and each node passes it to the next (needs node-to-node ssh); "
                  "star: sent from here to every node; auto: chain from 3 nodes on, star if the nodes cannot ssh "
                  "to each other")
      ->check(CLI::IsMember({"auto", "chain", "star"}))
      ->capture_default_str();
  add_host_options(*app, pool_flags.hosts, false);
  add_pool_flags(*app, pool_flags);
  if (auto code = parse_command_line(*app, args)) return *code;

  auto request = make_sync_request(flags);
  if (!request) return report_error(request.error());
  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto report = sync_to_hosts(pool_flags, *request, flags.fanout, !flags.quiet, names);
  if (!report) return report_error(report.error());
  return kExitOk;
}

}  // namespace muster::cli
