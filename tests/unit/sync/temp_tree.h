// A scratch directory for the sync tests, removed afterwards, with helpers to build trees in it.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace muster::sync::testing {

class TempTree {
 public:
  TempTree() {
    char pattern[] = "/tmp/muster-sync-test.XXXXXX";
    const char* made = ::mkdtemp(pattern);
    base_ = made != nullptr ? made : "";
  }
  ~TempTree() {
    std::error_code ignored;
    // Make everything writable again first so that remove_all can get through read-only directories.
    for (auto it = std::filesystem::recursive_directory_iterator(base_, ignored);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
      if (it->is_directory(ignored) && !it->is_symlink(ignored)) ::chmod(it->path().c_str(), 0755);
    }
    std::filesystem::remove_all(base_, ignored);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& base() const { return base_; }
  std::string path(const std::string& relative) const { return base_ + "/" + relative; }

  void write(const std::string& relative, const std::string& content) const {
    std::filesystem::create_directories(std::filesystem::path(path(relative)).parent_path());
    std::ofstream(path(relative), std::ios::binary | std::ios::trunc) << content;
  }
  void mkdir(const std::string& relative) const { std::filesystem::create_directories(path(relative)); }
  void symlink(const std::string& target, const std::string& relative) const {
    std::filesystem::create_directories(std::filesystem::path(path(relative)).parent_path());
    ::symlink(target.c_str(), path(relative).c_str());
  }
  void set_mtime(const std::string& relative, int64_t seconds) const {
    struct timespec times[2] = {{0, UTIME_OMIT}, {seconds, 0}};
    ::utimensat(AT_FDCWD, path(relative).c_str(), times, AT_SYMLINK_NOFOLLOW);
  }

 private:
  std::string base_;
};

}  // namespace muster::sync::testing
