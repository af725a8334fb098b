#include "diagnosis/stack_dump.h"

#include <charconv>

#include <fmt/format.h>

#include "util/text.h"

namespace muster::diagnosis {
namespace {

std::string basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

int to_int(std::string_view text) {
  int value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// `  File "x.py", line 42 in train_step`
bool parse_python_frame(std::string_view line, Frame& frame) {
  line = trim(line);
  if (!line.starts_with("File \"")) return false;
  size_t close = line.find("\", line ", 6);
  if (close == std::string_view::npos) return false;
  frame.file = std::string(line.substr(6, close - 6));
  std::string_view rest = line.substr(close + 8);
  size_t in = rest.find(" in ");
  frame.line = to_int(rest.substr(0, in));
  frame.function = in == std::string_view::npos ? "?" : std::string(trim(rest.substr(in + 4)));
  return true;
}

// eu-stack `#0  0x00007f… __GI___clock_nanosleep` (optionally ` - 1` and `    /path/file.c:12` on the next line)
// gdb `#0  0x00007f… in __GI___clock_nanosleep (…) at ../x.c:78` or `#1  main () at x.c:3`.
bool parse_native_frame(std::string_view line, Frame& frame) {
  line = trim(line);
  if (line.size() < 2 || line[0] != '#' || line[1] < '0' || line[1] > '9') return false;
  size_t space = line.find_first_of(" \t");
  if (space == std::string_view::npos) return false;
  std::string_view rest = trim(line.substr(space));
  if (rest.starts_with("0x")) {
    size_t after = rest.find_first_of(" \t");
    rest = after == std::string_view::npos ? std::string_view() : trim(rest.substr(after));
  }
  if (rest.starts_with("in ")) rest = trim(rest.substr(3));
  size_t end = rest.find_first_of(" (\t");
  frame.function = std::string(end == std::string_view::npos ? rest : rest.substr(0, end));
  if (frame.function.empty()) frame.function = "??";
  size_t at = rest.rfind(" at ");
  if (at != std::string_view::npos) {
    std::string_view where = trim(rest.substr(at + 4));
    size_t colon = where.rfind(':');
    frame.file = std::string(where.substr(0, colon));
    if (colon != std::string_view::npos) frame.line = to_int(where.substr(colon + 1));
  }
  return true;
}

bool is_thread_header(StackKind kind, std::string_view line) {
  if (kind == StackKind::python) {
    return (line.starts_with("Thread 0x") || line.starts_with("Current thread 0x") || line.starts_with("Stack (")) &&
           line.find("most recent call first") != std::string_view::npos;
  }
  return line.starts_with("TID ") || line.starts_with("Thread ");
}

}  // namespace

StackDump parse_stack_dump(StackKind kind, std::string text) {
  StackDump dump;
  dump.kind = kind;
  for (std::string_view line : split_lines(text)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_thread_header(kind, line)) {
      std::string_view label = line.substr(0, line.find(" (most recent call first)"));
      if (label.ends_with(':')) label.remove_suffix(1);
      dump.threads.push_back(Thread{std::string(label), {}});
      continue;
    }
    Frame frame;
    bool parsed = kind == StackKind::python ? parse_python_frame(line, frame) : parse_native_frame(line, frame);
    if (!parsed) continue;
    if (dump.threads.empty()) dump.threads.push_back(Thread{kind == StackKind::python ? "Stack" : "Thread", {}});
    dump.threads.back().frames.push_back(std::move(frame));
  }
  dump.text = std::move(text);
  return dump;
}

const Thread* main_thread(const StackDump& dump) {
  if (dump.threads.empty()) return nullptr;
  return dump.kind == StackKind::python ? &dump.threads.back() : &dump.threads.front();
}

bool is_library_file(std::string_view file) {
  if (file.empty() || file.front() == '<') return true;  // <frozen importlib._bootstrap>, <string>
  if (file.find("/site-packages/") != std::string_view::npos) return true;
  if (file.find("/dist-packages/") != std::string_view::npos) return true;
  size_t lib = file.find("/lib/python");
  return lib != std::string_view::npos && file.find('/', lib + 11) != std::string_view::npos;
}

std::string describe_thread(const Thread& thread) {
  if (thread.frames.empty()) return "(no frames)";
  const Frame& top = thread.frames.front();
  auto where = [](const Frame& frame) {
    if (frame.file.empty()) return frame.function;
    return fmt::format("{} ({}:{})", frame.function, basename(frame.file), frame.line);
  };
  if (!is_library_file(top.file)) return where(top);
  for (const Frame& frame : thread.frames) {
    if (!is_library_file(frame.file)) return fmt::format("{} ← {}", top.function, where(frame));
  }
  return where(top);
}

}  // namespace muster::diagnosis
