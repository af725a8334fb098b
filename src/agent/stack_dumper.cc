#include "agent/stack_dumper.h"

#include <fmt/format.h>

#include "posix/environment.h"
#include "posix/file.h"
#include "posix/pipe.h"
#include "posix/proc.h"
#include "util/text.h"

namespace muster::agent {
namespace {

constexpr int64_t kPythonWaitMs = 3000;   // the hook's dump must start within this
constexpr int64_t kSettleMs = 60;         // and is complete when the file stopped growing this long
constexpr int64_t kFlightWaitMs = 10000;  // unless it is writing the flight recorder (then at most this long)
constexpr int64_t kNativeWaitMs = 15000;  // a debugger attaching to a large process takes seconds
constexpr int64_t kPollMs = 20;
constexpr size_t kMaxDump = 4u << 20;

enum class Step { python, native, done };

// The marker line the hook writes first: "muster-stacks pid=<pid> start=<ticks> helper=0x<thread>".
struct Marker {
  int pid = 0;
  std::string start;
  std::string helper;
};

std::optional<Marker> read_marker(const std::string& path) {
  auto text = posix::read_regular_file(path);  // the worker's file: a FIFO there must not block the agent
  if (!text) return std::nullopt;
  std::string_view line = split_lines(*text).empty() ? std::string_view() : split_lines(*text).front();
  if (!line.starts_with("muster-stacks ")) return std::nullopt;
  Marker marker;
  for (std::string_view rest = line; !rest.empty();) {
    size_t space = rest.find(' ');
    std::string_view word = rest.substr(0, space);
    if (word.starts_with("pid=")) marker.pid = std::atoi(std::string(word.substr(4)).c_str());
    if (word.starts_with("start=")) marker.start = std::string(word.substr(6));
    if (word.starts_with("helper=")) marker.helper = std::string(word.substr(7));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return marker;
}

// The hook writes "muster-flight-recorder begin" before it dumps PyTorch's flight recorder and "... end" after.
bool flight_recorder_pending(std::string_view dump) {
  auto count = [&](std::string_view line) {
    size_t n = 0;
    for (size_t at = dump.find(line); at != std::string_view::npos; at = dump.find(line, at + 1)) ++n;
    return n;
  };
  return count("muster-flight-recorder begin\n") > count("muster-flight-recorder end");
}

uint64_t file_size(const std::string& path) {
  auto st = posix::lstat_path(path);
  return st && *st ? (*st)->size : 0;
}

}  // namespace

struct StackDumper::Job {
  protocol::WorkerStack answer;
  int pid = 0;
  Step step = Step::python;
  std::string file;         // the hook's file
  std::string helper;       // the hook's thread, left out of the dump
  uint64_t offset = 0;      // the file's size before the signal
  uint64_t seen = 0;        // its size at the last look
  int64_t changed_ms = 0;   // when it last grew (0: not yet)
  int64_t deadline_ms = 0;  // of the current step
  int64_t signalled_ms = 0; // when the hook was signalled
  posix::Process debugger;
  posix::Fd debugger_out;
  std::string tool;
  std::string native;
};

StackDumper::StackDumper(int signal) : signal_(signal) {}
StackDumper::~StackDumper() = default;

std::string clean_python_dump(const std::string& text, const std::string& helper_thread) {
  std::string out;
  bool skipping = false;
  for (std::string_view line : split_lines(text)) {
    if (line.starts_with("muster-stacks ") || line.starts_with("muster-flight-recorder ")) continue;
    bool header = line.starts_with("Thread 0x") || line.starts_with("Current thread 0x");
    if (header) skipping = !helper_thread.empty() && line.find(helper_thread) != std::string_view::npos;
    if (!skipping) out += std::string(line) + "\n";
  }
  return out;
}

void StackDumper::start(uint32_t request, uint32_t worker, int pid, const std::string& stacks_dir, int64_t now_ms) {
  auto job = std::make_unique<Job>();
  job->answer.request = request;
  job->answer.worker = worker;
  job->pid = pid;
  if (!stacks_dir.empty()) {
    job->file = fmt::format("{}/{}.stacks", stacks_dir, pid);
    auto marker = read_marker(job->file);
    auto start = posix::process_start_time(pid);
    bool ours = marker && marker->pid == pid && start && marker->start == std::to_string(*start);
    if (ours && posix::catches_signal(pid, signal_)) {
      job->helper = marker->helper;
      job->offset = job->seen = file_size(job->file);
      if (posix::signal_process(pid, signal_)) {
        job->deadline_ms = now_ms + kPythonWaitMs;
        job->signalled_ms = now_ms;
        jobs_.push_back(std::move(job));
        return;
      }
    }
  }
  start_native(*job, now_ms);
  jobs_.push_back(std::move(job));
}

void StackDumper::start_native(Job& job, int64_t now_ms) {
  job.step = Step::native;
  std::vector<std::string> argv;
  if (auto eu = posix::find_program("eu-stack")) {
    argv = {*eu, "-p", std::to_string(job.pid)};
    job.tool = "eu-stack";
  } else if (auto gdb = posix::find_program("gdb")) {
    argv = {*gdb, "-batch", "-nx", "-p", std::to_string(job.pid), "-ex", "thread apply all bt"};
    job.tool = "gdb";
  }
  auto out = posix::make_pipe();
  if (!argv.empty() && out) {
    posix::SpawnOptions spawn;
    spawn.argv = argv;
    spawn.stdout_fd = out->write.get();
    spawn.parent_death_signal = 9;
    auto debugger = posix::spawn(spawn);
    if (debugger) {
      job.debugger = std::move(*debugger);
      job.debugger_out = std::move(out->read);
      (void)posix::set_nonblocking(job.debugger_out.get());
      job.deadline_ms = now_ms + kNativeWaitMs;
      return;
    }
  }
  job.step = Step::done;
  job.answer.kind = protocol::StackKind::kernel;
  job.answer.note = "kernel: no Python stack hook answered and no eu-stack or gdb is installed";
  job.answer.text = posix::kernel_wait_summary(job.pid);
}

bool StackDumper::advance(Job& job, int64_t now_ms) {
  if (job.step == Step::python) {
    uint64_t size = file_size(job.file);
    if (size != job.seen) {
      job.seen = size;
      job.changed_ms = now_ms;
    }
    bool settled = job.changed_ms != 0 && now_ms - job.changed_ms >= kSettleMs;
    if (settled) {
      auto text = posix::read_regular_file(job.file);
      // The stacks are in; the flight recorder's dump that follows them is awaited (a stalled job is stopped
      // once every stack is in, and the dump must be whole on disk by then), but not for ever.
      if (text && text->size() > job.offset &&
          flight_recorder_pending(std::string_view(*text).substr(job.offset)) &&
          now_ms - job.signalled_ms < kFlightWaitMs) {
        return false;
      }
      if (text && text->size() > job.offset) {
        job.answer.kind = protocol::StackKind::python;
        job.answer.text = clean_python_dump(text->substr(job.offset, kMaxDump), job.helper);
        job.step = Step::done;
        return true;
      }
    }
    if (now_ms < job.deadline_ms) return false;
    start_native(job, now_ms);
    if (job.step == Step::done) {
      job.answer.note = "the Python hook did not answer (a thread holds the GIL in C?); " + job.answer.note;
      return true;
    }
    return false;
  }
  if (job.step == Step::native) {
    char buffer[65536];
    for (int round = 0; round < 16 && job.debugger_out.valid(); ++round) {
      auto got = posix::read_some(job.debugger_out.get(), buffer);
      if (!got || got->eof) {
        job.debugger_out.reset();
        break;
      }
      if (got->would_block) break;
      if (job.native.size() < kMaxDump) job.native.append(buffer, got->bytes);
    }
    bool exited = job.debugger.try_wait().has_value() && !job.debugger_out.valid();
    if (!exited && now_ms < job.deadline_ms) return false;
    if (!exited) (void)job.debugger.signal(9);
    job.step = Step::done;
    if (job.native.find("#0") != std::string::npos) {
      job.answer.kind = protocol::StackKind::native;
      job.answer.note = "native: " + job.tool;
      job.answer.text = std::move(job.native);
    } else {
      job.answer.kind = protocol::StackKind::kernel;
      job.answer.note = fmt::format("kernel: {} could not read the process", job.tool);
      job.answer.text = posix::kernel_wait_summary(job.pid);
    }
    return true;
  }
  return true;
}

std::vector<protocol::WorkerStack> StackDumper::poll(int64_t now_ms) {
  std::vector<protocol::WorkerStack> done;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    Job& job = **it;
    if (job.step != Step::done && !advance(job, now_ms)) {
      ++it;
      continue;
    }
    if (job.answer.text.empty() && job.answer.note.empty()) job.answer.note = "the process ended before its stack was taken";
    done.push_back(std::move(job.answer));
    if (job.debugger.pid() > 0 && !job.debugger.reaped()) (void)job.debugger.wait();
    it = jobs_.erase(it);
  }
  return done;
}

int64_t StackDumper::next_deadline(int64_t now_ms) const { return busy() ? now_ms + kPollMs : now_ms + 60'000; }

}  // namespace muster::agent
