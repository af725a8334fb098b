// One process's stack as the agent captured it, parsed: the Python dump that faulthandler writes (all threads,
// most recent call first) or a native one (eu-stack or gdb `thread apply all bt`). Pure: text in, frames out.
// What `muster stack` and stall detection group and summarize (stack_groups.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace muster::diagnosis {

enum class StackKind { none, python, native, kernel };

struct Frame {
  std::string function;  // "all_reduce", "__GI___clock_nanosleep", "<module>"
  std::string file;      // "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py"; empty if unknown
  int line = 0;          // 0 if unknown
  bool operator==(const Frame&) const = default;
};

struct Thread {
  std::string label;          // "Thread 0x00007f…", "Current thread 0x…", "TID 1234", as the dump says
  std::vector<Frame> frames;  // innermost first
};

struct StackDump {
  StackKind kind = StackKind::none;
  std::vector<Thread> threads;  // in the dump's order
  std::string text;             // the dump as captured, for the full report
};

// Parses `text` as `kind` says. Lines that are not frames or thread headers are kept only in `text`.
StackDump parse_stack_dump(StackKind kind, std::string text);

// The thread that matters for grouping: Python's main thread (faulthandler lists threads newest first, so the
// main thread is the last block), or a native dump's first thread (the process's own TID). Null if none.
const Thread* main_thread(const StackDump& dump);

// A short description of where a thread is: the innermost frame, and the innermost frame in the user's own code
// when that is another one: "all_reduce ← train_step (train.py:42)", "stuck_in_data_loader (train.py:14)".
// Library code is what lives under site-packages, dist-packages or the interpreter's lib/pythonX.Y.
std::string describe_thread(const Thread& thread);

// Whether `file` is library code (see describe_thread).
bool is_library_file(std::string_view file);

}  // namespace muster::diagnosis
