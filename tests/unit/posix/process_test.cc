// Real processes, started through /bin/sh one-liners (after ninja's subprocess_test.cc).
#include "posix/process.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "posix/clock.h"
#include "posix/pipe.h"
#include "posix/poller.h"
#include "posix/process_groups.h"
#include "posix/signals.h"
#include "posix_test_support.h"

namespace muster::posix {
namespace {

using testing::Captured;
using testing::ChildGuard;
using testing::gone_within;
using testing::process_gone;
using testing::read_line;
using testing::read_until_eof;
using testing::run_captured;
using testing::shell;
using testing::wait_for;

// A fresh directory under the system temp dir, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "muster-posix-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

ExitStatus run_status(const SpawnOptions& options) {
  auto spawned = spawn(options);
  EXPECT_TRUE(spawned) << spawned.error().message;
  if (!spawned) return Exited{-2};
  ChildGuard child(std::move(*spawned));
  auto status = wait_for(*child, 10000);
  EXPECT_TRUE(status) << "child did not exit within 10 s";
  return status.value_or(Exited{-3});
}

TEST(Spawn, ExitCodesAreReported) {
  EXPECT_EQ(run_status(shell("exit 0")), ExitStatus(Exited{0}));
  EXPECT_EQ(run_status(shell("exit 3")), ExitStatus(Exited{3}));
  EXPECT_EQ(run_status(shell("exit 255")), ExitStatus(Exited{255}));
}

TEST(Spawn, DeathBySignalIsReported) {
  ExitStatus status = run_status(shell("kill -TERM $$"));
  EXPECT_EQ(status, ExitStatus(Signaled{SIGTERM}));
  EXPECT_EQ(shell_exit_code(status), 143);
}

TEST(Spawn, StdoutThroughAPipeIsReadFully) {
  auto run = run_captured(shell("echo hello; head -c 1000000 /dev/zero; echo; echo bye"));
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, ExitStatus(Exited{0}));
  ASSERT_EQ(run->out.size(), 6u + 1000000u + 1u + 4u);
  EXPECT_EQ(run->out.substr(0, 6), "hello\n");
  EXPECT_EQ(run->out.substr(run->out.size() - 4), "bye\n");
}

TEST(Spawn, StderrGoesToItsOwnFd) {
  auto err = make_pipe();
  ASSERT_TRUE(err);
  SpawnOptions options = shell("echo out; echo err >&2");
  options.stderr_fd = err->write.get();
  auto run = run_captured(options);
  err->write.reset();
  ASSERT_TRUE(run);
  EXPECT_EQ(run->out, "out\n");
  auto err_text = read_until_eof(err->read.get(), 5000);
  ASSERT_TRUE(err_text);
  EXPECT_EQ(*err_text, "err\n");
}

TEST(Spawn, StdoutAndStderrCanShareAPipe) {
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  SpawnOptions options = shell("echo one; echo two >&2");
  options.stdout_fd = pipe->write.get();
  options.stderr_fd = pipe->write.get();
  auto spawned = spawn(options);
  ASSERT_TRUE(spawned) << spawned.error().message;
  ChildGuard child(std::move(*spawned));
  pipe->write.reset();
  auto out = read_until_eof(pipe->read.get(), 5000);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "one\ntwo\n");
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Exited{0}));
}

TEST(Spawn, StdinDefaultsToDevNull) {
  auto run = run_captured(SpawnOptions{.argv = {"cat"}}, 5000);  // would hang on a terminal or pipe
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, ExitStatus(Exited{0}));
  EXPECT_EQ(run->out, "");
}

TEST(Spawn, StdinFromAPipe) {
  auto in = make_pipe();
  ASSERT_TRUE(in);
  ASSERT_TRUE(write_all(in->write.get(), "fed through stdin"));
  in->write.reset();
  SpawnOptions options{.argv = {"cat"}};
  options.stdin_fd = in->read.get();
  auto run = run_captured(options, 5000);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->out, "fed through stdin");
}

TEST(Spawn, MissingProgramIsAnErrorNamingIt) {
  auto spawned = spawn(SpawnOptions{.argv = {"muster-no-such-program"}, .env = std::vector<std::string>{"PATH=/nx:/bin"}});
  ASSERT_FALSE(spawned);
  EXPECT_EQ(spawned.error().kind, ErrorKind::io);
  EXPECT_EQ(spawned.error().message, "command not found: 'muster-no-such-program' (searched PATH=/nx:/bin)");
  auto by_path = spawn(SpawnOptions{.argv = {"/nx/muster-no-such-program"}});
  ASSERT_FALSE(by_path);
  EXPECT_EQ(by_path.error().message, "cannot run '/nx/muster-no-such-program': No such file or directory");

  auto absolute = spawn(SpawnOptions{.argv = {"/nonexistent/dir/prog"}});
  ASSERT_FALSE(absolute);
  EXPECT_EQ(absolute.error().message, "cannot run '/nonexistent/dir/prog': No such file or directory");
}

TEST(Spawn, NonExecutableFileIsPermissionDenied) {
  TempDir dir;
  auto script = dir.path() / "not-executable";
  std::ofstream(script) << "#!/bin/sh\nexit 0\n";
  ::chmod(script.c_str(), 0644);

  auto direct = spawn(SpawnOptions{.argv = {script.string()}});
  ASSERT_FALSE(direct);
  EXPECT_EQ(direct.error().message, "cannot run '" + script.string() + "': Permission denied");

  // Found through PATH, but not runnable: EACCES wins over the ENOENT of the other entries.
  SpawnOptions searched{.argv = {"not-executable"}};
  searched.env = std::vector<std::string>{"PATH=/nonexistent:" + dir.path().string() + ":/also/missing"};
  auto via_path = spawn(searched);
  ASSERT_FALSE(via_path);
  EXPECT_EQ(via_path.error().message, "cannot run 'not-executable': Permission denied");
}

TEST(Spawn, EmptyArgvIsAUsageError) {
  auto spawned = spawn(SpawnOptions{});
  ASSERT_FALSE(spawned);
  EXPECT_EQ(spawned.error().kind, ErrorKind::usage);
}

TEST(Spawn, PathComesFromTheChildEnvironment) {
  SpawnOptions options{.argv = {"sh", "-c", "exit 7"}};
  options.env = std::vector<std::string>{"PATH=/nonexistent"};
  EXPECT_FALSE(spawn(options));
  options.env = std::vector<std::string>{"PATH=/nonexistent:/bin"};
  EXPECT_EQ(run_status(options), ExitStatus(Exited{7}));
}

TEST(Spawn, SearchPathCanBeTurnedOff) {
  TempDir dir;  // holds no "sh", so a relative "sh" cannot resolve
  SpawnOptions options{.argv = {"sh", "-c", "exit 0"}};
  options.cwd = dir.path().string();
  options.search_path = false;
  auto spawned = spawn(options);
  ASSERT_FALSE(spawned);
  EXPECT_EQ(spawned.error().message, "cannot run 'sh': No such file or directory");
}

TEST(Spawn, EnvironmentIsReplaced) {
  SpawnOptions options = shell("echo \"$MUSTER_A:${MUSTER_TEST_INHERITED-unset}\"");
  options.env = std::vector<std::string>{"MUSTER_A=one"};
  ::setenv("MUSTER_TEST_INHERITED", "yes", 1);
  auto run = run_captured(options);
  ::unsetenv("MUSTER_TEST_INHERITED");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->out, "one:unset\n");
}

TEST(Spawn, EnvironmentIsInherited) {
  ::setenv("MUSTER_TEST_INHERITED", "yes", 1);
  auto run = run_captured(shell("echo \"${MUSTER_TEST_INHERITED-unset}\""));
  ::unsetenv("MUSTER_TEST_INHERITED");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->out, "yes\n");
}

TEST(Spawn, WorkingDirectory) {
  TempDir dir;
  SpawnOptions options{.argv = {"pwd", "-P"}};
  options.cwd = dir.path().string();
  auto run = run_captured(options);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->out, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST(Spawn, MissingWorkingDirectoryIsAnErrorNamingIt) {
  SpawnOptions options{.argv = {"true"}};
  options.cwd = "/nonexistent/muster-cwd";
  auto spawned = spawn(options);
  ASSERT_FALSE(spawned);
  EXPECT_EQ(spawned.error().message,
            "cannot run 'true': cannot change to directory '/nonexistent/muster-cwd': "
            "No such file or directory");
}

TEST(Spawn, NoParentFdLeaksIntoTheChild) {
  // Two descriptors without FD_CLOEXEC, as a careless library might leave them.
  int leaked_b = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(leaked_b, 0);
  int leaked_a = ::fcntl(leaked_b, F_DUPFD, 50);
  ASSERT_GE(leaked_a, 50);
  auto run = run_captured(SpawnOptions{.argv = {"ls", "/proc/self/fd"}});
  ::close(leaked_a);
  ::close(leaked_b);
  ASSERT_TRUE(run);
  std::istringstream lines(run->out);
  std::set<int> fds;
  for (std::string line; std::getline(lines, line);) fds.insert(std::stoi(line));
  // 0, 1, 2, plus the one ls opened itself to read the directory (the lowest free number, 3).
  EXPECT_EQ(fds, (std::set<int>{0, 1, 2, 3})) << run->out;
}

std::string status_field(const std::string& status_text, const std::string& field) {
  std::istringstream lines(status_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(field + ":")) return line.substr(field.size() + 1);
  }
  return "missing";
}

TEST(Spawn, ChildGetsTheOriginalMaskAndDefaultDispositions) {
  std::ifstream own("/proc/self/status");
  std::string own_status((std::istreambuf_iterator<char>(own)), std::istreambuf_iterator<char>());
  SignalBlock block;  // blocks TERM, CHLD...; ignores PIPE
  auto run = run_captured(SpawnOptions{.argv = {"cat", "/proc/self/status"}});
  ASSERT_TRUE(run);
  EXPECT_EQ(status_field(run->out, "SigBlk"), status_field(own_status, "SigBlk"));
  EXPECT_EQ(status_field(run->out, "SigIgn"), "\t0000000000000000");
}

TEST(Process, TryWaitDoesNotBlockAndTheStatusIsStable) {
  auto spawned = spawn(shell("sleep 0.2; exit 4"));
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  int64_t start = monotonic_ms();
  EXPECT_FALSE(child->try_wait());
  EXPECT_LT(monotonic_ms() - start, 100);
  EXPECT_FALSE(child->reaped());
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Exited{4}));
  EXPECT_TRUE(child->reaped());
  EXPECT_EQ(child->try_wait(), ExitStatus(Exited{4}));
  EXPECT_EQ(child->wait(), ExitStatus(Exited{4}));
}

TEST(Process, MoveTransfersTheChild) {
  auto spawned = spawn(shell("exit 5"));
  ASSERT_TRUE(spawned);
  Process a = std::move(*spawned);
  int pid = a.pid();
  EXPECT_GT(pid, 0);
  EXPECT_EQ(a.pgid(), pid);
  Process b(std::move(a));
  EXPECT_EQ(a.pid(), -1);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.pid(), pid);
  ChildGuard child(std::move(b));
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Exited{5}));
}

TEST(Process, ChildWithoutGroupSharesOurs) {
  SpawnOptions options = shell("exit 0");
  options.new_process_group = false;
  auto spawned = spawn(options);
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  EXPECT_EQ(child->pgid(), 0);
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Exited{0}));
  EXPECT_TRUE(child->signal(SIGTERM));  // reaped and groupless: nothing is sent, nothing fails
}

TEST(Process, SignalAfterTheGroupIsGoneSucceeds) {
  auto spawned = spawn(shell("exit 0"));
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Exited{0}));
  EXPECT_TRUE(child->signal(SIGTERM));
}

TEST(Process, IgnoredSigtermThenSigkillAfterAGracePeriod) {
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  SpawnOptions options = shell("trap '' TERM; echo ready; sleep 100");
  options.stdout_fd = pipe->write.get();
  auto spawned = spawn(options);
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  pipe->write.reset();
  ASSERT_EQ(read_line(pipe->read.get(), 5000), "ready");  // the trap is in place

  int64_t start = monotonic_ms();
  ASSERT_TRUE(child->signal(SIGTERM));
  EXPECT_FALSE(wait_for(*child, 300)) << "SIGTERM should have been ignored";
  ASSERT_TRUE(child->signal(SIGKILL));
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Signaled{SIGKILL}));
  EXPECT_LT(monotonic_ms() - start, 5000);
}

// Starts `sh -c 'sleep 100 & echo $!; wait'` and returns the background sleep's pid.
int start_with_grandchild(SpawnOptions options, std::optional<Process>& out) {
  auto pipe = make_pipe();
  if (!pipe) return -1;
  options.argv = {"/bin/sh", "-c", "sleep 100 & echo $!; wait"};
  options.stdout_fd = pipe->write.get();
  auto spawned = spawn(options);
  if (!spawned) return -1;
  out.emplace(std::move(*spawned));
  pipe->write.reset();
  auto line = read_line(pipe->read.get(), 5000);
  return line ? std::stoi(*line) : -1;
}

TEST(Process, SignallingTheGroupKillsGrandchildren) {
  std::optional<Process> spawned;
  int grandchild = start_with_grandchild(SpawnOptions{}, spawned);
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  ASSERT_GT(grandchild, 0);
  ASSERT_FALSE(process_gone(grandchild));
  EXPECT_EQ(::getpgid(grandchild), child->pgid());

  ASSERT_TRUE(child->signal(SIGTERM));
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Signaled{SIGTERM}));
  EXPECT_TRUE(gone_within(grandchild, 2000));
  if (!process_gone(grandchild)) ::kill(grandchild, SIGKILL);
}

// The agent signals an exited worker's group only if group_exists (no scan of /proc otherwise) and the group is in
// its session: a group outlives its reaped leader while any member lives, and is gone once none is left.
TEST(ProcessGroups, AGroupExistsWhileAnyMemberLivesAndIsInOurSession) {
  std::optional<Process> spawned;
  int grandchild = start_with_grandchild(SpawnOptions{}, spawned);
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  ASSERT_GT(grandchild, 0);
  int pgid = child->pgid();
  EXPECT_TRUE(group_exists(pgid));
  ASSERT_EQ(::kill(child->pid(), SIGKILL), 0);  // the leader only
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Signaled{SIGKILL}));
  EXPECT_TRUE(group_exists(pgid)) << "the grandchild still lives in the group";
  EXPECT_TRUE(groups_in_session(current_session_id()).contains(pgid));
  EXPECT_EQ(groups_still_in_session({pgid, 0}, current_session_id()), std::set<int>{pgid});
  EXPECT_TRUE(groups_still_in_session({pgid}, current_session_id() + 1).empty()) << "another session's";
  ASSERT_EQ(::kill(grandchild, SIGKILL), 0);
  int64_t deadline = monotonic_ms() + 5000;  // the orphan is reaped by init (a zombie still counts)
  while (group_exists(pgid) && monotonic_ms() < deadline) ::usleep(5000);
  EXPECT_FALSE(group_exists(pgid));
  EXPECT_TRUE(groups_still_in_session({pgid}, current_session_id()).empty());
  EXPECT_FALSE(group_exists(0));
  EXPECT_FALSE(group_exists(1));
}

TEST(Process, WithoutAGroupOnlyTheChildIsSignalled) {
  // The control for the test above: signalling one pid leaves the grandchild running.
  SpawnOptions options;
  options.new_process_group = false;
  std::optional<Process> spawned;
  int grandchild = start_with_grandchild(options, spawned);
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  ASSERT_GT(grandchild, 0);

  ASSERT_TRUE(child->signal(SIGTERM));
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Signaled{SIGTERM}));
  EXPECT_FALSE(gone_within(grandchild, 300));
  ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(gone_within(grandchild, 2000));
}

// Forks an intermediate process that spawns `sleep 100` with the given parent-death signal, reports the
// sleep's pid and exits at once. Returns that pid (or -1) after the intermediate has been reaped.
int spawn_from_a_dying_parent(int parent_death_signal) {
  auto pipe = make_pipe();
  if (!pipe) return -1;
  pid_t intermediate = ::fork();
  if (intermediate < 0) return -1;
  if (intermediate == 0) {
    SpawnOptions options{.argv = {"sleep", "100"}};
    options.parent_death_signal = parent_death_signal;
    auto spawned = spawn(options);
    std::string pid = spawned ? std::to_string(spawned->pid()) + "\n" : "-1\n";
    (void)write_all(pipe->write.get(), pid);
    ::_exit(spawned ? 0 : 1);  // no gtest teardown in the copy
  }
  pipe->write.reset();
  auto line = read_line(pipe->read.get(), 5000);
  int status = 0;
  ::waitpid(intermediate, &status, 0);
  return line ? std::stoi(*line) : -1;
}

TEST(Process, ParentDeathSignalKillsTheChildWhenItsParentDies) {
  int grandchild = spawn_from_a_dying_parent(SIGKILL);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(gone_within(grandchild, 2000));
  if (!process_gone(grandchild)) ::kill(grandchild, SIGKILL);
}

TEST(Process, WithoutParentDeathSignalTheChildOutlivesItsParent) {
  int grandchild = spawn_from_a_dying_parent(0);  // the control for the test above
  ASSERT_GT(grandchild, 0);
  EXPECT_FALSE(gone_within(grandchild, 300));
  ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(gone_within(grandchild, 2000));
}

TEST(Process, ParentDeathSignalKeepsTheOtherSpawnGuarantees) {
  TempDir dir;
  SpawnOptions options = shell("pwd -P; echo $MUSTER_A; exit 9");
  options.parent_death_signal = SIGKILL;
  options.cwd = dir.path().string();
  options.env = std::vector<std::string>{"MUSTER_A=a"};
  auto run = run_captured(options);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, ExitStatus(Exited{9}));
  EXPECT_EQ(run->out, std::filesystem::canonical(dir.path()).string() + "\na\n");
  options.argv = {"muster-no-such-program"};
  auto missing = spawn(options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "command not found: 'muster-no-such-program' (searched PATH=/usr/local/bin:/usr/bin:/bin)");
}

// Kills and reaps whatever a failed assertion left running.
struct ReapAll {
  std::vector<Process>& children;
  ~ReapAll() {
    for (auto& child : children) {
      if (child.pid() > 0 && !child.reaped()) {
        (void)child.signal(SIGKILL);
        child.wait();
      }
    }
  }
};

TEST(Process, AThousandConcurrentChildrenAreAllReapedThroughSigchld) {
  constexpr int kChildren = 1000;
  SignalBlock block;
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  int64_t start = monotonic_ms();
  std::vector<Process> children;
  ReapAll reap_all{children};
  children.reserve(kChildren);
  for (int i = 0; i < kChildren; ++i) {
    auto spawned = spawn(SpawnOptions{.argv = {i % 2 == 0 ? "/bin/true" : "/bin/false"}});
    ASSERT_TRUE(spawned) << "child " << i << ": " << spawned.error().message;
    children.push_back(std::move(*spawned));
  }
  // The event loop's way: wait, and after SIGCHLD poll every live child.
  int64_t deadline = monotonic_ms() + 60000;
  size_t live = children.size();
  std::vector<std::optional<ExitStatus>> statuses(children.size());
  while (live > 0 && monotonic_ms() < deadline) {
    ASSERT_TRUE(poller->wait(std::min(timeout_until(deadline), 1000)));
    take_pending_signals();  // SIGCHLDs coalesce, so poll every child whatever arrived
    for (size_t i = 0; i < children.size(); ++i) {
      if (statuses[i]) continue;
      statuses[i] = children[i].try_wait();
      if (statuses[i]) --live;
    }
  }
  EXPECT_EQ(live, 0u);
  for (size_t i = 0; i < children.size(); ++i) {
    ASSERT_TRUE(statuses[i]) << "child " << i << " never reaped";
    EXPECT_EQ(*statuses[i], ExitStatus(Exited{i % 2 == 0 ? 0 : 1})) << "child " << i;
  }
  EXPECT_LT(monotonic_ms() - start, 60000);
}

}  // namespace
}  // namespace muster::posix
