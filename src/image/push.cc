#include "image/push.h"

#include <fmt/core.h>

#include "cluster/node_set.h"
#include "container/node_probe.h"
#include "container/runtime_argv.h"
#include "head/node_op.h"
#include "head/node_runs.h"
#include "image/node_image.h"
#include "posix/clock.h"
#include "posix/dir.h"
#include "posix/file.h"
#include "posix/private_dir.h"
#include "posix/run_commands.h"
#include "posix/signals.h"
#include "sync_head/run_sync.h"
#include "sync_head/sync_view.h"
#include "util/random.h"
#include "util/text.h"

namespace muster::image {
namespace {

constexpr int kInspectTimeoutMs = 30'000;
constexpr int kSaveTimeoutMs = 60 * 60'000;
constexpr int kLoadTimeoutMs = 60 * 60'000;
constexpr const char* kArchiveName = "image.tar";

void say(const PushOptions& options, const std::string& text) {
  if (!options.quiet) fmt::print(stderr, "muster: {}\n", text);
}

// The archive of `id` in the cache, saved now unless an earlier push left it (the same id saves to the same
// bytes). Written under a temporary name and renamed, so a cut-short save is never taken for an archive.
Result<std::string> cached_archive(container::Runtime runtime, const PushOptions& options, const std::string& id,
                                   PushReport& report) {
  // The user's own directory (posix/private_dir.h): an archive someone else could replace would be loaded on
  // every node.
  auto made = posix::make_private_dir(posix::user_cache_dir(), "muster/images/" + id);
  if (!made) return made.error();
  std::string dir = *made;
  std::string archive = dir + "/" + kArchiveName;
  if (posix::path_exists(archive)) return archive;
  std::string partial = dir + "/.partial-" + random_hex(8) + ".tar";
  say(options, fmt::format("saving {} to {}", options.image, archive));
  int64_t start = posix::monotonic_ms();
  auto saved = posix::run_commands({container::save_argv(runtime, options.image, partial)}, kSaveTimeoutMs)[0];
  report.save_ms = posix::monotonic_ms() - start;
  auto parent = posix::Dir::open(dir);
  if (!saved.succeeded()) {
    if (parent) (void)parent->remove(partial.substr(dir.size() + 1), false);
    return make_error(ErrorKind::io, "{} save {} failed: {}", container::runtime_name(runtime), options.image,
                      posix::describe_failure(saved));
  }
  if (!parent) return parent.error();
  if (auto renamed = parent->rename(partial.substr(dir.size() + 1), kArchiveName); !renamed) return renamed.error();
  return archive;
}

// Keeps only `id`'s archive in the cache: it is there to push the same image to more nodes later, and an image
// archive is as large as the image. Other entries are directories named by image ids (64 hex digits).
void prune_other_archives(const std::string& id) {
  std::string root = posix::user_cache_dir() + "/muster/images";
  auto dir = posix::Dir::open(root);
  if (!dir) return;
  auto names = dir->names();
  if (!names) return;
  for (const auto& name : *names) {
    bool image_id = name.size() == 64 && name.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!image_id || name == id) continue;
    if (auto entry = dir->open_dir(name)) {
      if (auto files = entry->names()) {
        for (const auto& file : *files) (void)entry->remove(file, false);
      }
    }
    (void)dir->remove(name, true);
  }
}

// The same connection settings for some of the nodes only (by destination, user@host).
head::ConnectOptions only(const head::ConnectOptions& all, const std::vector<std::string>& destinations) {
  head::ConnectOptions some = all;
  some.hosts.hostfile.clear();
  some.hosts.exclude_hosts.clear();
  some.hosts.hosts.clear();
  for (const auto& destination : destinations) some.hosts.hosts += (some.hosts.hosts.empty() ? "" : ",") + destination;
  return some;
}

// Each node's answer to `muster node image`: what it holds, or why it could not say.
std::vector<NodeImageState> states_of(const std::vector<head::NodeRun>& runs) {
  std::vector<NodeImageState> states;
  for (const auto& run : runs) {
    if (!run.ran) states.push_back({"", "", run.error.empty() ? run.err : run.error, -1});
    else states.push_back(node_image_state_from_json(run.out));
  }
  return states;
}

// `muster node image` for the pushed image, as the options name it.
NodeImageOp image_op(const PushOptions& options) {
  NodeImageOp op;
  op.options.image = options.image;
  op.options.runtime = options.runtime;
  return op;
}

// Every node's runtime and id for the image.
Result<std::vector<NodeImageState>> node_states(const PushOptions& options, std::vector<std::string>& names,
                                                std::vector<std::string>& destinations) {
  auto pool = head::connect_pool(options.connect, names);
  if (!pool) return pool.error();
  for (size_t i = 0; i < (*pool)->size(); ++i) destinations.push_back((*pool)->destination(i));
  auto runs = head::run_on_nodes(**pool, [&](size_t) { return head::node_op_command(image_op(options)); },
                                 kInspectTimeoutMs);
  (*pool)->shutdown(3000);
  if (!runs) return runs.error();
  return states_of(*runs);
}

// Loads the archive on the nodes (in parallel), then removes it there. `head_cache`: the archive is at the path
// of the head's own cache (no --stage); while the nodes remove theirs, the head marks that directory
// (kHeadCacheMarker), so that a node sharing the head's home, or the head's own machine, keeps it.
Result<std::vector<NodeImageState>> load_on(const PushOptions& options, const std::vector<std::string>& destinations,
                                            const std::string& archive, const std::string& id, bool head_cache) {
  std::vector<std::string> names;
  auto pool = head::connect_pool(only(options.connect, destinations), names);
  if (!pool) return pool.error();
  NodeImageOp load_op = image_op(options), remove_op = image_op(options);
  load_op.options.load = archive;
  load_op.options.expect = id;
  remove_op.options.remove = archive;
  auto runs = head::run_on_nodes(**pool, [&](size_t) { return head::node_op_command(load_op); }, kLoadTimeoutMs);
  std::string marker = archive.substr(0, archive.rfind('/') + 1) + kHeadCacheMarker;
  bool marked = head_cache && posix::write_file_atomic(marker, "", 0600);
  if (!head_cache || marked) {  // (unmarked, the head's archive could go: the nodes keep theirs instead)
    (void)head::run_on_nodes(**pool, [&](size_t) { return head::node_op_command(remove_op); }, kInspectTimeoutMs);
  }
  if (marked) posix::remove_file(marker);
  (*pool)->shutdown(3000);
  if (!runs) return runs.error();
  return states_of(*runs);
}

// The runtime on this machine that holds the image, and its id: the one asked for first, then the other one
// (`--container-runtime docker` for the nodes while the image is in this machine's podman, say).
Result<std::pair<container::Runtime, std::string>> local_image(const PushOptions& options) {
  std::vector<container::Runtime> order = {container::Runtime::podman, container::Runtime::docker};
  if (options.runtime == "docker") std::swap(order[0], order[1]);
  std::string why;
  for (auto runtime : order) {
    if (!container::installed_runtime(container::runtime_name(runtime))) continue;
    auto found = posix::run_commands({container::image_id_argv(runtime, options.image)}, kInspectTimeoutMs)[0];
    if (found.succeeded()) return std::make_pair(runtime, container::normalize_image_id(found.out));
    why += fmt::format("\n  {}: {}", container::runtime_name(runtime), posix::describe_failure(found));
  }
  if (why.empty()) return make_error(ErrorKind::usage, "muster image push: neither podman nor docker is installed here");
  return make_error(ErrorKind::usage, "muster image push: no image {} here:{}", options.image, why);
}

}  // namespace

Result<PushReport> run_image_push(const PushOptions& options) {
  posix::SignalBlock signals;
  auto local = local_image(options);
  if (!local) return local.error();
  auto runtime = &local->first;
  PushReport report;
  report.id = local->second;
  std::vector<std::string> names, destinations;
  auto states = node_states(options, names, destinations);
  if (!states) return states.error();
  std::vector<std::string> need, need_names, have, other, failed;
  for (size_t i = 0; i < states->size(); ++i) {
    const auto& state = (*states)[i];
    NodePush node;
    node.node = names[i];
    if (!state.error.empty()) {
      node.error = state.error;
      failed.push_back(names[i]);
    } else if (state.id == report.id) {
      node.outcome = NodePush::Outcome::had_it;
      have.push_back(names[i]);
    } else {
      if (!state.id.empty()) other.push_back(fmt::format("{} (has {})", names[i], state.id.substr(0, 12)));
      need.push_back(destinations[i]);
      need_names.push_back(names[i]);
    }
    report.nodes.push_back(node);
  }
  say(options, fmt::format("{} is {} here; {} of {} nodes need it{}{}", options.image, report.id.substr(0, 12),
                           need.size(), names.size(), have.empty() ? "" : "; already there: " + cluster::fold_nodes(have),
                           other.empty() ? "" : "; replacing another image on " + join(other, ", ")));
  if (!need.empty()) {
    auto archive = cached_archive(*runtime, options, report.id, report);
    if (!archive) return archive.error();
    auto size = posix::lstat_path(*archive);
    if (size && *size) report.archive_bytes = (*size)->size;
    std::string dir = archive->substr(0, archive->rfind('/'));
    posix::remove_file(dir + "/" + kHeadCacheMarker);  // an interrupted push's, never to be sent to the nodes
    sync_head::SyncOptions sync;
    sync.connect = only(options.connect, need);
    sync.source = dir;
    // --stage DIR: a fresh private directory per push, made by the sync (0700, never through a link, refused if
    // it is there already: kSyncFreshRoot), so nobody else can put an archive of theirs in its place.
    sync.to = options.stage.empty() ? dir : options.stage + "/muster-image-" + random_hex(16);
    sync.fresh_destination = !options.stage.empty();
    sync.quiet = true;
    sync.fanout = options.fanout;
    say(options, fmt::format("sending {} ({}) to {}", kArchiveName, sync_head::format_size(report.archive_bytes),
                             join(need_names, ", ")));
    int64_t start = posix::monotonic_ms();
    auto sent = sync_head::run_sync(sync);
    report.send_ms = posix::monotonic_ms() - start;
    if (!sent) return sent.error();
    say(options, fmt::format("sent and verified in {:.1f} s; loading", report.send_ms / 1000.0));
    auto loaded = load_on(options, need, sync.to + "/" + kArchiveName, report.id, sync.to == dir);
    if (!loaded) return loaded.error();
    for (size_t i = 0, k = 0; i < report.nodes.size(); ++i) {
      auto& node = report.nodes[i];
      if (node.outcome == NodePush::Outcome::had_it || !node.error.empty()) continue;
      const auto& state = (*loaded)[k++];
      node.load_ms = state.load_ms;
      node.error = state.error;
      node.outcome = state.error.empty() ? NodePush::Outcome::loaded : NodePush::Outcome::failed;
      if (!state.error.empty()) failed.push_back(node.node);
    }
  }
  for (const auto& node : report.nodes) {
    if (node.outcome == NodePush::Outcome::loaded) {
      say(options, fmt::format("{}: loaded in {:.1f} s, id {} verified", node.node, node.load_ms / 1000.0,
                               report.id.substr(0, 12)));
    } else if (node.outcome == NodePush::Outcome::failed) {
      fmt::print(stderr, "muster: {}: {}\n", node.node, node.error);
    }
  }
  prune_other_archives(report.id);
  if (!failed.empty()) {
    return make_error(ErrorKind::remote, "muster image push: {} of {} nodes do not have {} ({})", failed.size(),
                      names.size(), options.image, join(failed, ", "));
  }
  say(options, fmt::format("{} {} {} ({})", names.size() == 1 ? names[0] : fmt::format("all {} nodes", names.size()),
                           names.size() == 1 ? "has" : "have", options.image, report.id.substr(0, 12)));
  return report;
}

}  // namespace muster::image
