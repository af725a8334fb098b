#include "posix/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "posix/fd.h"
#include "posix/limits.h"
#include "posix/original_limit.h"
#include "posix/original_mask.h"
#include "posix/pipe.h"

namespace muster::posix {

namespace {

// The child's setup steps that can fail; the failing one travels back over the error pipe.
enum class Step : int { set_group, set_death_signal, redirect, change_dir, exec };

struct ChildFailure {
  Step step;
  int error;
};

// Everything the child needs, prepared before fork so the child only makes async-signal-safe calls.
struct ChildPlan {
  std::vector<std::string> candidates;  // paths to try with execve, in order
  std::vector<char*> argv;              // null-terminated, pointing into SpawnOptions::argv
  std::vector<char*> env_storage;       // null-terminated, pointing into SpawnOptions::env
  char** envp = nullptr;
  const char* cwd = nullptr;  // nullptr: stay where muster is
  std::array<int, 3> stdio{-1, -1, -1};  // parent fd that becomes child fd 0/1/2; -1: leave as is
  sigset_t mask{};
  bool new_group = false;
  bool new_session = false;
  int death_signal = 0;
  pid_t parent = 0;
  int ptracer = 0;
  bool restore_open_files = false;  // give the child the soft RLIMIT_NOFILE muster started with
  rlimit open_files{};
};

std::string path_variable(const SpawnOptions& options) {
  if (options.env) {
    for (const auto& entry : *options.env) {
      if (entry.starts_with("PATH=")) return entry.substr(5);
    }
  } else if (const char* path = std::getenv("PATH")) {
    return path;
  }
  return "/usr/local/bin:/usr/bin:/bin";
}

// execvp's lookup, done in the parent: the child then only tries execve on each candidate.
std::vector<std::string> exec_candidates(const SpawnOptions& options) {
  const std::string& program = options.argv[0];
  if (!options.search_path || program.find('/') != std::string::npos) return {program};
  std::vector<std::string> candidates;
  std::string path = path_variable(options);
  size_t start = 0;
  for (;;) {
    size_t end = path.find(':', start);
    std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    candidates.push_back(dir.empty() ? program : dir + "/" + program);  // empty entry: current dir
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return candidates;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

ChildPlan make_plan(const SpawnOptions& options, int dev_null) {
  ChildPlan plan;
  plan.candidates = exec_candidates(options);
  plan.argv = c_strings(options.argv);
  if (options.env) {
    plan.env_storage = c_strings(*options.env);
    plan.envp = plan.env_storage.data();
  } else {
    plan.envp = environ;
  }
  plan.cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  plan.stdio = {options.stdin_fd >= 0 ? options.stdin_fd : dev_null, options.stdout_fd, options.stderr_fd};
  plan.mask = detail::original_signal_mask();
  plan.new_group = options.new_process_group || options.new_session;
  plan.new_session = options.new_session;
  plan.death_signal = options.parent_death_signal;
  plan.ptracer = options.ptracer;
  plan.parent = ::getpid();
  if (uint64_t soft = detail::original_open_file_soft_limit(); soft != 0) {
    rlimit now{};
    if (::getrlimit(RLIMIT_NOFILE, &now) == 0) {
      rlim_t original = soft == UINT64_MAX ? RLIM_INFINITY : static_cast<rlim_t>(soft);
      plan.restore_open_files = original != now.rlim_cur && (original <= now.rlim_max || now.rlim_max == RLIM_INFINITY);
      plan.open_files = rlimit{original, now.rlim_max};
    }
  }
  return plan;
}

// ---- In the child, between fork and exec: system calls only, no allocation, no locks. ----

[[noreturn]] void fail(int error_fd, Step step, int error) {
  ChildFailure failure{step, error};
  [[maybe_unused]] ssize_t ignored = ::write(error_fd, &failure, sizeof(failure));
  ::_exit(127);
}

void reset_signals(const sigset_t& mask) {
  struct sigaction action{};
  action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) {  // EINVAL for KILL, STOP and glibc's own: harmless
    ::sigaction(signal, &action, nullptr);
  }
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
}

bool redirect_stdio(std::array<int, 3> sources) {
  // A source that is itself one of 0..2 would be overwritten by an earlier dup2: lift it out of the way.
  for (int& source : sources) {
    if (source >= 0 && source < 3) {
      source = ::fcntl(source, F_DUPFD_CLOEXEC, 3);
      if (source < 0) return false;
    }
  }
  for (int target = 0; target < 3; ++target) {
    int source = sources[static_cast<size_t>(target)];
    if (source >= 0 && ::dup2(source, target) < 0) return false;  // dup2 clears FD_CLOEXEC on target
  }
  return true;
}

// Everything above 2 is closed on exec, whoever opened it and however (the error pipe included).
void close_other_fds_on_exec() {
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  rlimit limit{};
  rlim_t max_fd = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 1024;
  max_fd = std::min<rlim_t>(max_fd, 1 << 16);
  for (int fd = 3; static_cast<rlim_t>(fd) < max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

[[noreturn]] void exec_child(const ChildPlan& plan, int error_fd) {
  if (error_fd < 3) {  // muster ran with 0..2 closed; keep the error pipe clear of the stdio slots
    error_fd = ::fcntl(error_fd, F_DUPFD_CLOEXEC, 3);
    if (error_fd < 0) ::_exit(127);
  }
  reset_signals(plan.mask);
  if (plan.new_session) {
    if (::setsid() < 0) fail(error_fd, Step::set_group, errno);
  } else if (plan.new_group && ::setpgid(0, 0) != 0) {
    fail(error_fd, Step::set_group, errno);
  }
  if (plan.death_signal != 0) {
    if (::prctl(PR_SET_PDEATHSIG, plan.death_signal) != 0) fail(error_fd, Step::set_death_signal, errno);
    if (::getppid() != plan.parent) {  // the parent died before prctl took effect: act as if after
      ::kill(::getpid(), plan.death_signal);
      ::_exit(127);
    }
  }
  if (plan.ptracer > 0) (void)::prctl(PR_SET_PTRACER, static_cast<unsigned long>(plan.ptracer));  // no Yama: EINVAL
  if (!redirect_stdio(plan.stdio)) fail(error_fd, Step::redirect, errno);
  if (plan.cwd != nullptr && ::chdir(plan.cwd) != 0) fail(error_fd, Step::change_dir, errno);
  close_other_fds_on_exec();
  if (plan.restore_open_files) ::setrlimit(RLIMIT_NOFILE, &plan.open_files);  // after the loop above: it scans up to the limit
  int error = ENOENT;
  bool denied = false;
  for (const auto& candidate : plan.candidates) {
    ::execve(candidate.c_str(), plan.argv.data(), plan.envp);
    error = errno;
    denied = denied || error == EACCES;
    if (error != ENOENT && error != ENOTDIR && error != EACCES && error != ESTALE) break;
  }
  fail(error_fd, Step::exec, denied && (error == ENOENT || error == ENOTDIR) ? EACCES : error);
}

// ---- Back in the parent. ----

Error spawn_error(const SpawnOptions& options, const ChildFailure& failure) {
  const std::string& program = options.argv[0];
  const char* reason = std::strerror(failure.error);
  switch (failure.step) {
    case Step::exec:
      if (failure.error == ENOENT && options.search_path && program.find('/') == std::string::npos) {
        return make_error(ErrorKind::io, "command not found: '{}' (searched PATH={})", program,
                          path_variable(options));
      }
      return make_error(ErrorKind::io, "cannot run '{}': {}", program, reason);
    case Step::change_dir:
      return make_error(ErrorKind::io, "cannot run '{}': cannot change to directory '{}': {}", program,
                        options.cwd, reason);
    case Step::set_group:
      return make_error(ErrorKind::io, "cannot run '{}': setpgid failed: {}", program, reason);
    case Step::set_death_signal:
      return make_error(ErrorKind::io, "cannot run '{}': PR_SET_PDEATHSIG failed: {}", program, reason);
    case Step::redirect:
      return make_error(ErrorKind::io, "cannot run '{}': redirecting stdin/stdout/stderr failed: {}", program,
                        reason);
  }
  return make_error(ErrorKind::internal, "cannot run '{}': {}", program, reason);
}

// Reads the child's report: nothing (EOF at exec) means it is running the program.
std::optional<ChildFailure> read_failure(int error_fd) {
  ChildFailure failure{};
  auto* bytes = reinterpret_cast<char*>(&failure);
  size_t got = 0;
  while (got < sizeof(failure)) {
    ssize_t n = ::read(error_fd, bytes + got, sizeof(failure) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof(failure)) return std::nullopt;
  return failure;
}

void reap_blocking(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

ExitStatus decode(int raw) {
  if (WIFSIGNALED(raw)) return Signaled{WTERMSIG(raw), WCOREDUMP(raw) != 0};
  return Exited{WEXITSTATUS(raw)};
}

}  // namespace

Result<void> signal_group(int pgid, int sig) {
  if (pgid <= 1) return make_error(ErrorKind::internal, "refusing to signal process group {}", pgid);
  if (::kill(-pgid, sig) != 0 && errno != ESRCH) {
    return make_error(ErrorKind::io, "kill(-{}, {}): {}", pgid, sig, std::strerror(errno));
  }
  return {};
}

Result<Process> fork_call(int stdin_fd, const char* name, int (*body)()) {
  Fd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!null.valid()) return make_error(ErrorKind::io, "cannot open /dev/null: {}", std::strerror(errno));
  sigset_t mask = detail::original_signal_mask();
  pid_t pid = ::fork();
  if (pid < 0) return fork_failure("a helper process", errno);
  if (pid == 0) {
    reset_signals(mask);
    (void)::prctl(PR_SET_NAME, name);
    if (::setpgid(0, 0) != 0 || !redirect_stdio({stdin_fd, null.get(), null.get()})) ::_exit(127);
    if (::close_range(3, ~0U, 0) != 0) ::_exit(127);
    ::_exit(body());
  }
  (void)::setpgid(pid, pid);  // also here: the caller may signal the group before the child ran
  return Process(pid, pid);
}

Result<Process> spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return make_error(ErrorKind::usage, "cannot run an empty command");
  Fd dev_null;
  if (options.stdin_fd < 0) {
    dev_null.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!dev_null.valid()) {
      return make_error(ErrorKind::io, "cannot open /dev/null: {}", std::strerror(errno));
    }
  }
  ChildPlan plan = make_plan(options, dev_null.get());
  auto error_pipe = make_pipe();
  if (!error_pipe) return error_pipe.error();

  pid_t pid = ::fork();
  if (pid < 0) return fork_failure("'" + options.argv[0] + "'", errno);
  if (pid == 0) exec_child(plan, error_pipe->write.get());

  error_pipe->write.reset();
  // Also set in the child; doing it here too means the group exists when spawn returns, whichever runs first.
  if (options.new_process_group && !options.new_session) ::setpgid(pid, pid);
  if (auto failure = read_failure(error_pipe->read.get())) {
    reap_blocking(pid);
    return spawn_error(options, *failure);
  }
  return Process(pid, options.new_process_group || options.new_session ? pid : 0);
}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), pgid_(std::exchange(other.pgid_, 0)), status_(other.status_) {
  other.status_.reset();
}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    pid_ = std::exchange(other.pid_, -1);
    pgid_ = std::exchange(other.pgid_, 0);
    status_ = std::exchange(other.status_, std::nullopt);
  }
  return *this;
}

Result<void> Process::signal(int sig) {
  if (pid_ <= 0) return make_error(ErrorKind::internal, "signal() on a Process that holds no child");
  pid_t target = pgid_ > 0 ? -pgid_ : pid_;
  if (pgid_ <= 0 && status_) return {};
  if (::kill(target, sig) == 0 || errno == ESRCH) return {};
  return make_error(ErrorKind::io, "cannot send {} to {} {}: {}", signal_name(sig),
                    pgid_ > 0 ? "process group" : "process", pgid_ > 0 ? pgid_ : pid_, std::strerror(errno));
}

std::optional<ExitStatus> Process::reap(bool block) {
  assert(pid_ > 0 && "waiting on a Process that holds no child");
  if (status_) return status_;
  int raw = 0;
  for (;;) {
    pid_t got = ::waitpid(pid_, &raw, block ? 0 : WNOHANG);
    if (got == pid_) {
      status_ = decode(raw);
      break;
    }
    if (got == 0) return std::nullopt;
    if (errno == EINTR) continue;
    status_ = Exited{-1};  // ECHILD: reaped behind our back, the status is gone
    break;
  }
  return status_;
}

std::optional<ExitStatus> Process::try_wait() { return reap(false); }

ExitStatus Process::wait() { return *reap(true); }

}  // namespace muster::posix
