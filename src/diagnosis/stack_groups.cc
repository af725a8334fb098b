#include "diagnosis/stack_groups.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cluster/node_set.h"

namespace muster::diagnosis {
namespace {

// What two ranks must share to be in one group: their main thread's frames (Python: function, file and line;
// native: function names only, as addresses differ from process to process).
std::string group_key(const RankStack& stack) {
  const Thread* thread = main_thread(stack.dump);
  if (!thread) return "\x01" + stack.note;
  std::string key(1, static_cast<char>(stack.dump.kind));
  for (const Frame& frame : thread->frames) {
    key += frame.function + "\x1f";
    if (stack.dump.kind == StackKind::python) key += frame.file + ":" + std::to_string(frame.line);
    key += "\x1e";
  }
  return key;
}

std::string kind_suffix(StackKind kind) {
  switch (kind) {
    case StackKind::native: return " [native]";
    case StackKind::kernel: return " [kernel]";
    default: return "";
  }
}

}  // namespace

std::vector<StackGroup> group_stacks(const std::vector<RankStack>& stacks) {
  std::map<std::string, StackGroup> by_key;
  std::vector<const RankStack*> sorted;
  for (const auto& stack : stacks) sorted.push_back(&stack);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->rank < b->rank; });
  for (const RankStack* stack : sorted) {
    StackGroup& group = by_key[group_key(*stack)];
    group.ranks.push_back(stack->rank);
    if (std::find(group.nodes.begin(), group.nodes.end(), stack->node) == group.nodes.end()) {
      group.nodes.push_back(stack->node);
    }
    if (group.ranks.size() > 1) continue;
    const Thread* thread = main_thread(stack->dump);
    group.has_stack = thread != nullptr;
    group.where = thread ? describe_thread(*thread) + kind_suffix(stack->dump.kind)
                         : "no stack: " + (stack->note.empty() ? std::string("nothing was captured") : stack->note);
  }
  std::vector<StackGroup> groups;
  for (auto& [key, group] : by_key) groups.push_back(std::move(group));
  std::sort(groups.begin(), groups.end(), [](const StackGroup& a, const StackGroup& b) {
    if (a.ranks.size() != b.ranks.size()) return a.ranks.size() > b.ranks.size();
    return a.ranks.front() < b.ranks.front();
  });
  size_t largest = groups.empty() ? 0 : groups.front().ranks.size();
  for (auto& group : groups) group.odd = groups.size() > 1 && group.ranks.size() < largest;
  return groups;
}

std::string format_stack_summary(const std::vector<StackGroup>& groups) {
  std::vector<std::string> lines;
  for (const auto& group : groups) {
    std::string who;
    if (group.ranks.size() == 1) {
      who = fmt::format("rank {} on {}", group.ranks.front(), group.nodes.front());
    } else {
      who = fmt::format("ranks {} ({}) on {}", cluster::fold_numbers(group.ranks), group.ranks.size(),
                        cluster::counted_nodes(group.nodes));
    }
    lines.push_back(fmt::format("  {}: {}{}", who, group.where, group.odd ? "   <- the odd one out" : ""));
  }
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
  return text;
}

std::string format_full_stacks(const std::vector<RankStack>& stacks) {
  std::vector<const RankStack*> sorted;
  for (const auto& stack : stacks) sorted.push_back(&stack);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->rank < b->rank; });
  std::string text;
  for (const RankStack* stack : sorted) {
    text += fmt::format("=== rank {} on {}{} ===\n", stack->rank, stack->node,
                        stack->note.empty() ? "" : " (" + stack->note + ")");
    text += stack->dump.text.empty() ? "(no stack)\n" : stack->dump.text;
    if (!text.ends_with('\n')) text += '\n';
    text += '\n';
  }
  return text;
}

}  // namespace muster::diagnosis
