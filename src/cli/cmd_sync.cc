// `muster sync DIR [--to DEST]`: flags -> sync_head::SyncOptions; the work is sync_head::run_sync.
#include "cli/data_path_flags.h"
#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "sync_head/run_sync.h"

namespace muster::cli {

int run_sync(const std::vector<std::string>& args) {
  auto app = make_app("sync", "Copy a directory to the same path on every node: only what differs moves, each file "
                              "is verified by hash before it replaces the old one, the source is read once for all "
                              "nodes. Leave paths out with --exclude or .musterignore files (gitignore syntax).");
  sync_head::SyncOptions options;
  app->add_option("DIR", options.source, "the directory to copy")->required()->type_name("DIR");
  app->add_option("--to", options.to, "absolute destination on every node (default: DIR's absolute path)");
  app->add_option("--exclude", options.excludes, "leave out paths matching PATTERN (gitignore syntax; repeatable)");
  app->add_option("--exclude-from", options.exclude_from, "read exclude patterns from FILE (e.g. .gitignore)")
      ->type_name("FILE");
  app->add_option("--links", options.links,
                  "what symbolic links that leave DIR become: keep (copied as links; the default at DIR's own path, "
                  "where they resolve on each node as here), copy-target (copy what they point to), skip (leave "
                  "them out). Needed with --to when a relative link climbs out of DIR")
      ->check(CLI::IsMember({"keep", "copy-target", "skip"}));
  app->add_flag("--delete", options.delete_extraneous,
                "delete files on the nodes that DIR does not have (only inside the destination; excluded paths are kept)");
  app->add_flag("-n,--dry-run", options.dry_run, "list what would change on each node; change nothing");
  app->add_flag("--no-compress", options.no_compress, "send file data as is (default: zstd where it helps)");
  app->add_flag("-q,--quiet", options.quiet, "print nothing when every node ends up identical");
  app->add_option("--fanout", options.fanout,
                  "chain: the data leaves here once and each node passes it to the next (needs node-to-node ssh); "
                  "N: a tree, the head and each node sending to at most N nodes; star: sent from here to every "
                  "node; auto: chain from 3 nodes on, the head reaching a node itself where the one before it "
                  "cannot ssh to it, and the star when the source is unchanged since the last sync to these nodes")
      ->check(CLI::IsMember({"auto", "chain", "star"}) | CLI::Range(1, 1 << 20))
      ->capture_default_str();
  add_data_path_options(*app, options.data);
  add_connect_options(*app, options.connect, false);
  if (auto code = parse_command_line(*app, args)) return *code;
  if (auto report = sync_head::run_sync(options); !report) return report_error(report.error());
  return kExitOk;
}

}  // namespace muster::cli
