// fork_detached: the child leads a session of its own with /dev/null as stdin and the given output as stdout and
// stderr, keeps only the descriptors it was told to, ignores SIGPIPE; the parent gets it as a Process.
#include "posix/detach.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "posix/pipe.h"
#include "posix/proc.h"
#include "posix_test_support.h"

namespace muster::posix {
namespace {

// What the child found, one word each: written to its stdout (the pipe) by the child itself.
std::string describe_self(int kept, int own, int dropped) {
  std::string out;
  out += ::getsid(0) == ::getpid() ? "session-leader " : "same-session ";
  char link[256] = {};
  ssize_t n = ::readlink("/proc/self/fd/0", link, sizeof(link) - 1);
  out += n > 0 && std::string(link, static_cast<size_t>(n)) == "/dev/null" ? "stdin-null " : "stdin-other ";
  out += ::fcntl(kept, F_GETFD) >= 0 ? "kept-open " : "kept-closed ";
  out += ::fcntl(own, F_GETFD) >= 0 ? "own-open " : "own-closed ";
  out += ::fcntl(dropped, F_GETFD) >= 0 ? "other-open " : "other-closed ";
  struct sigaction action {};
  ::sigaction(SIGPIPE, nullptr, &action);
  out += action.sa_handler == SIG_IGN ? "sigpipe-ignored\n" : "sigpipe-default\n";
  return out;
}

TEST(ForkDetached, ChildLeadsItsOwnSessionWithOnlyWhatItKeeps) {
  auto output = make_pipe();
  ASSERT_TRUE(output);
  auto kept = make_pipe();
  ASSERT_TRUE(kept);
  int dropped = ::open("/dev/null", O_RDONLY);  // not close-on-exec, not kept: inherited, like a shell's pipe
  ASSERT_GE(dropped, 0);
  int kept_inherited = ::dup(kept->read.get());  // not close-on-exec either, but named in `keep`
  ASSERT_GE(kept_inherited, 0);
  auto own = make_pipe();  // close-on-exec: muster's own, stays open
  ASSERT_TRUE(own);
  auto forked = fork_detached(output->write.get(), {kept_inherited});
  ASSERT_TRUE(forked);
  if (!*forked) {  // the child: report and leave without running any of the test's destructors
    std::string text = describe_self(kept_inherited, own->read.get(), dropped);
    (void)!::write(1, text.data(), text.size());
    ::_exit(0);
  }
  ::close(dropped);
  ::close(kept_inherited);
  testing::ChildGuard child(std::move(**forked));
  output->write.reset();
  auto text = testing::read_until_eof(output->read.get(), 10'000);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "session-leader stdin-null kept-open own-open other-closed sigpipe-ignored\n");
  auto status = testing::wait_for(*child, 10'000);
  ASSERT_TRUE(status);
  EXPECT_EQ(shell_exit_code(*status), 0);
}

TEST(ProcessAlive, AZombieIsNotAlive) {
  auto child = spawn({.argv = {"/bin/sh", "-c", "exit 0"}});
  ASSERT_TRUE(child);
  int pid = child->pid();
  auto start = process_start_time(pid);
  ASSERT_TRUE(start);
  // Not reaped yet: a zombie, the same process still, but not alive.
  for (int i = 0; i < 1000 && process_alive(pid, *start); ++i) ::usleep(5000);
  EXPECT_FALSE(process_alive(pid, *start));
  EXPECT_TRUE(same_process(pid, *start));
  child->wait();
  EXPECT_TRUE(process_alive(::getpid(), *process_start_time(::getpid())));
  EXPECT_FALSE(process_alive(::getpid(), *process_start_time(::getpid()) + 1));
}

}  // namespace
}  // namespace muster::posix
