#include "doctor/tree_hash.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#define XXH_INLINE_ALL  // header-only: the binary pushed to nodes must not need libxxhash there
#include <xxhash.h>

#include <fmt/format.h>

namespace muster::doctor {
namespace {

namespace fs = std::filesystem;

struct FileEntry {
  std::string relative;
  fs::path path;
  int64_t size = 0;
};

std::string hex(uint64_t hash) { return fmt::format("{:016x}", hash); }

// Appends the regular files under `directory` (in walk order) to `files`; false once a limit is passed.
bool list_files(const fs::path& directory, const std::string& prefix, const TreeHashLimits& limits,
                std::vector<FileEntry>& files, int64_t& bytes) {
  std::error_code error;
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    entries.push_back(*it);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path().filename().string() < b.path().filename().string(); });
  for (const auto& entry : entries) {
    std::string name = entry.path().filename().string();
    auto status = entry.symlink_status(error);
    if (error) continue;
    if (fs::is_directory(status)) {
      if (name == ".git" || name == "__pycache__") continue;
      if (!list_files(entry.path(), prefix + name + "/", limits, files, bytes)) return false;
    } else if (fs::is_regular_file(status)) {
      auto size = static_cast<int64_t>(entry.file_size(error));
      if (error) size = 0;
      files.push_back({prefix + name, entry.path(), size});
      bytes += size;
      if (static_cast<int64_t>(files.size()) > limits.max_files || bytes > limits.max_bytes) return false;
    }
  }
  return true;
}

std::string hash_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "unreadable";
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  std::vector<char> buffer(1 << 16);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    XXH3_64bits_update(state, buffer.data(), static_cast<size_t>(in.gcount()));
  }
  bool failed = in.bad();
  uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return failed ? "unreadable" : hex(hash);
}

}  // namespace

TreeHash hash_tree(const std::string& root, const TreeHashLimits& limits) {
  TreeHash result;
  std::vector<FileEntry> files;
  std::error_code error;
  auto status = fs::status(root, error);
  bool complete = true;
  if (fs::is_regular_file(status)) {
    auto size = static_cast<int64_t>(fs::file_size(root, error));
    files.push_back({fs::path(root).filename().string(), root, error ? 0 : size});
    result.bytes = files.back().size;
    complete = size <= limits.max_bytes;
  } else {
    complete = list_files(root, "", limits, files, result.bytes);
  }
  result.files = static_cast<int64_t>(files.size());
  if (!complete) {
    result.too_big = true;
    return result;
  }
  bool named = result.files <= limits.max_named_files;
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  for (const auto& file : files) {
    std::string hash = hash_file(file.path);
    std::string record = file.relative;
    record += '\0';
    record += std::to_string(file.size);
    record += '\0';
    record += hash;
    record += '\n';
    XXH3_64bits_update(state, record.data(), record.size());
    if (named) result.file_hashes.emplace(file.relative, std::move(hash));
  }
  result.hash = hex(XXH3_64bits_digest(state));
  XXH3_freeState(state);
  return result;
}

}  // namespace muster::doctor
