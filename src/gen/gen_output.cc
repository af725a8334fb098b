#include "gen/gen_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

namespace muster::gen {
namespace {

using Files = std::vector<GeneratedFile>;

Result<void> write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return make_error(ErrorKind::io, "cannot write '{}': {}", path.string(), std::strerror(errno));
  fmt::print(stderr, "muster gen: wrote {}\n", path.string());
  return {};
}

Result<void> write_directory(const std::filesystem::path& dir, const Files& files) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return make_error(ErrorKind::io, "cannot create directory '{}': {}", dir.string(), error.message());
  }
  for (const auto& file : files) {
    if (auto written = write_file(dir / file.name, file.text); !written) return written;
  }
  return {};
}

void print_files(const OutputChoice& choice, const Files& files) {
  if (files.size() == 1) {
    fmt::print("{}", files.front().text);
    return;
  }
  for (const auto& file : files) {
    fmt::print(fmt::runtime(choice.yaml ? "--- # {}\n{}" : "# ==> {} <==\n{}"), file.name, file.text);
  }
}

}  // namespace

Result<void> emit_generated(Files files, const OutputChoice& choice, size_t nodes) {
  if (choice.node_rank >= 0) {
    std::erase_if(files, [&](const GeneratedFile& file) { return file.node_rank != choice.node_rank; });
    if (files.empty()) {
      return make_error(ErrorKind::usage, "--node-rank {}: the plan has nodes 0 to {}", choice.node_rank, nodes - 1);
    }
  }
  if (choice.output.empty()) {
    print_files(choice, files);
    return {};
  }
  // -o names a directory when the kind yields several files (per-node kinds always, unless --node-rank picks
  // one), else the file itself.
  bool to_directory = files.size() > 1 || (choice.per_node && choice.node_rank < 0) ||
                      std::filesystem::is_directory(choice.output);
  return to_directory ? write_directory(choice.output, files) : write_file(choice.output, files.front().text);
}

}  // namespace muster::gen
