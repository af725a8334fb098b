#include "agent/step_files_dir.h"

#include <utility>
#include <vector>

#include <fmt/core.h>

#include "agent/look_turn.h"
#include "posix/clock.h"
#include "posix/dir.h"
#include "posix/file.h"
#include "util/random.h"

namespace muster::agent {
namespace {

constexpr const char* kLock = ".lock";
constexpr const char* kPruned = ".pruned";  // its mtime: the last look for gone agents' directories
constexpr int64_t kPruneEveryNs = int64_t{600} * 1'000'000'000;

// At most one look every kPruneEveryNs, by one agent at a time: 1,000 agents of virtual nodes starting at once
// on one machine would otherwise each try the lock of every other one's directory.
void prune_now_and_then(const std::string& parent) {
  if (auto turn = take_turn(parent + "/" + kPruned, posix::wall_clock_ns(), kPruneEveryNs)) {
    remove_abandoned_step_dirs(parent);
  }
}

}  // namespace

StepFilesDir StepFilesDir::make(const std::string& runtime, const std::string& shm, uint32_t uid,
                                const std::string& fallback) {
  std::vector<std::pair<std::string, std::string>> places;  // (a place that must exist, our directory in it)
  if (runtime.starts_with("/")) places.emplace_back(runtime, runtime + "/muster");
  if (shm.starts_with("/")) places.emplace_back(shm, fmt::format("{}/muster-{}", shm, uid));
  for (const auto& [place, parent] : places) {
    if (!posix::Dir::open(place)) continue;
    if (!posix::ensure_private_dir(parent)) continue;  // not ours alone (another user made it first)
    auto dir = posix::Dir::open(parent);
    if (!dir) continue;
    prune_now_and_then(parent);
    for (int attempt = 0; attempt < 4; ++attempt) {
      std::string name = "a-" + random_hex(12);
      if (!dir->make_dir(name, 0700)) continue;
      auto lock = posix::open_append(parent + "/" + name + "/" + kLock, false, 0600);
      auto taken = lock ? posix::try_lock_exclusive(lock->get()) : Result<bool>(false);
      if (lock && taken && *taken) return StepFilesDir(parent, name, parent + "/" + name, std::move(*lock));
      (void)dir->remove_tree(name);
    }
  }
  return StepFilesDir("", "", fallback, posix::Fd());
}

StepFilesDir::StepFilesDir(StepFilesDir&& other) noexcept
    : parent_(std::exchange(other.parent_, {})),
      name_(std::exchange(other.name_, {})),
      path_(std::exchange(other.path_, {})),
      lock_(std::move(other.lock_)) {}

StepFilesDir& StepFilesDir::operator=(StepFilesDir&& other) noexcept {
  if (this != &other) {
    remove();
    parent_ = std::exchange(other.parent_, {});
    name_ = std::exchange(other.name_, {});
    path_ = std::exchange(other.path_, {});
    lock_ = std::move(other.lock_);
  }
  return *this;
}

StepFilesDir::~StepFilesDir() { remove(); }

void StepFilesDir::remove() {
  if (parent_.empty()) return;
  if (auto dir = posix::Dir::open(parent_)) (void)dir->remove_tree(name_);
  parent_.clear();
}

void remove_abandoned_step_dirs(const std::string& parent) {
  auto dir = posix::Dir::open(parent);
  if (!dir) return;
  auto names = dir->names();
  if (!names) return;
  for (const auto& name : *names) {
    if (!name.starts_with("a-")) continue;
    auto lock = posix::open_append(parent + "/" + name + "/" + kLock, false, 0600);
    if (!lock) continue;  // gone meanwhile
    auto taken = posix::try_lock_exclusive(lock->get());
    if (taken && *taken) (void)dir->remove_tree(name);  // the lock is free: its agent is gone
  }
}

}  // namespace muster::agent
