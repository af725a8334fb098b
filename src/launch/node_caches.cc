#include "launch/node_caches.h"

#include <algorithm>
#include <cerrno>

#include <fmt/core.h>

#include "head/node_op.h"
#include "head/node_runs.h"
#include "posix/dir.h"
#include "posix/file.h"
#include "posix/socket.h"

namespace muster::launch {
namespace {

constexpr int kTimeoutMs = 30'000;

// Makes `name` in `parent` (mode 0700) unless it is there, and opens it without following a link; refuses one
// that is not this user's alone.
Result<posix::Dir> private_dir(const posix::Dir& parent, const std::string& name, const std::string& shown) {
  if (auto made = parent.make_dir(name, 0700); !made && made.error().sys != EEXIST) {
    return make_error(ErrorKind::io, "cannot create {}: {}", shown, made.error().message);
  }
  auto dir = parent.open_dir(name);
  if (!dir) {
    if (dir.error().sys == ELOOP || dir.error().sys == ENOTDIR) {
      return make_error(ErrorKind::io, "{} is not a directory (a symbolic link or a file is in the way); refusing "
                                       "to put the job's caches there", shown);
    }
    return make_error(ErrorKind::io, "cannot open {}: {}", shown, dir.error().message);
  }
  auto st = dir->stat_self();
  if (!st) return make_error(ErrorKind::io, "cannot inspect {}: {}", shown, st.error().message);
  if (st->uid != posix::effective_uid()) {
    return make_error(ErrorKind::io, "{} belongs to uid {}, not to this user (uid {}); refusing to put the job's "
                                     "caches there (remove it, or choose --node-cache-dir)",
                      shown, st->uid, posix::effective_uid());
  }
  if ((st->mode & 022) != 0) {
    return make_error(ErrorKind::io, "{} has mode {:o}: others can write into it; refusing to put the job's caches "
                                     "there (chmod 700 it, or choose --node-cache-dir)", shown, st->mode);
  }
  return dir;
}

}  // namespace

Result<std::string> make_node_cache_dir(const std::string& base_in) {
  std::string base = base_in.empty() ? fmt::format("/tmp/muster-cache-{}", posix::effective_uid()) : base_in;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (base.empty() || base[0] != '/') return make_error(ErrorKind::usage, "--node-cache-dir {} is not absolute", base);
  auto host = posix::hostname();
  if (!host || host->empty() || host->find('/') != std::string::npos || *host == "." || *host == "..") {
    return make_error(ErrorKind::io, "cannot tell this node's host name");
  }
  // The base's parents as the user named them (links followed, missing ones made); the base and the node's
  // directory below it are private.
  size_t last = base.rfind('/');
  std::string parent_path = last == 0 ? "/" : base.substr(0, last);
  auto parent = posix::Dir::open("/", posix::DirOpen{.search_only = true, .follow = true});
  if (!parent) return make_error(ErrorKind::io, "cannot open /: {}", parent.error().message);
  std::string walked;
  for (size_t start = 1; start < parent_path.size();) {
    size_t end = std::min(parent_path.find('/', start), parent_path.size());
    std::string part = parent_path.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    walked += "/" + part;
    auto next = parent->open_dir(part, posix::DirOpen{.search_only = true, .follow = true});
    if (!next && next.error().sys == ENOENT) {
      (void)parent->make_dir(part, 0700);
      next = parent->open_dir(part, posix::DirOpen{.search_only = true, .follow = true});
    }
    if (!next) return make_error(ErrorKind::io, "cannot open {}: {}", walked, next.error().message);
    parent = std::move(next);
  }
  auto mine = private_dir(*parent, base.substr(last + 1), base);
  if (!mine) return mine.error();
  std::string dir = base + "/" + *host;
  auto node = private_dir(*mine, *host, dir);
  if (!node) return node.error();
  return dir;
}

EnvList node_cache_env(const std::string& dir, const EnvList& propagated) {
  EnvList env = {{"HF_DATASETS_CACHE", dir + "/huggingface/datasets"},
                 {"HF_HOME", dir + "/huggingface"},
                 {"TORCH_EXTENSIONS_DIR", dir + "/torch_extensions"},
                 {"TORCH_HOME", dir + "/torch"},
                 {"TRITON_CACHE_DIR", dir + "/triton"},
                 {"XDG_CACHE_HOME", dir + "/xdg"}};
  for (const char* hub : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE"}) {
    bool set = std::any_of(propagated.begin(), propagated.end(), [&](const auto& kv) { return kv.first == hub; });
    if (set) env.emplace_back(hub, dir + "/huggingface/hub");
  }
  std::sort(env.begin(), env.end());
  return env;
}

Result<int> CacheDirOp::run(const CacheDirOp& op) {
  auto dir = make_node_cache_dir(op.base);
  if (!dir) return dir.error();
  fmt::print("{}\n", *dir);
  return 0;
}

Result<std::vector<EnvList>> prepare_node_caches(head::AgentPool& pool, const std::vector<std::string>& names,
                                                 const std::string& base, const EnvList& propagated) {
  auto runs = head::run_on_nodes(pool, [&](size_t) { return head::node_op_command(CacheDirOp{base}); }, kTimeoutMs);
  if (!runs) return runs.error();
  std::vector<EnvList> envs;
  for (size_t node = 0; node < runs->size(); ++node) {
    const auto& run = (*runs)[node];
    std::string dir = run.out.substr(0, run.out.find('\n'));
    if (!run.ok() || dir.empty() || dir[0] != '/') {
      std::string why = !run.err.empty() ? run.err : !run.error.empty() ? run.error : run.out;
      while (!why.empty() && why.back() == '\n') why.pop_back();
      return make_error(ErrorKind::remote, "--node-local-caches: {}: {}", names[node], why);
    }
    envs.push_back(node_cache_env(dir, propagated));
  }
  return envs;
}

}  // namespace muster::launch
