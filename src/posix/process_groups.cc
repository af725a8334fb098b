#include "posix/process_groups.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace muster::posix {
namespace {

// /proc/PID/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and parentheses, so the fields
// are read after the last ')'.
bool group_and_session(const std::filesystem::path& stat_file, int& group, int& session) {
  std::ifstream in(stat_file);
  std::string text;
  if (!std::getline(in, text)) return false;
  size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  char state = 0;
  int parent = 0;
  return std::sscanf(text.c_str() + close + 1, " %c %d %d %d", &state, &parent, &group, &session) == 4;
}

}  // namespace

int current_session_id() { return static_cast<int>(::getsid(0)); }

bool group_exists(int pgid) { return pgid > 1 && (::kill(-pgid, 0) == 0 || errno != ESRCH); }

std::set<int> groups_still_in_session(const std::set<int>& candidates, int sid) {
  std::set<int> existing;
  for (int pgid : candidates) {
    if (group_exists(pgid)) existing.insert(pgid);
  }
  if (existing.empty()) return existing;
  std::set<int> in_session = groups_in_session(sid);
  std::erase_if(existing, [&](int pgid) { return !in_session.contains(pgid); });
  return existing;
}

std::set<int> groups_in_session(int sid) {
  std::set<int> groups;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    int group = 0, session = 0;
    if (group_and_session(entry.path() / "stat", group, session) && session == sid) groups.insert(group);
  }
  return groups;
}

}  // namespace muster::posix
