#include "launch/flight_dumps.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include <fmt/core.h>

#include "posix/file.h"
#include "util/text.h"

namespace muster::launch {

Result<std::string> save_flight_dump(const std::string& run_dir, const std::string& file_name, const std::string& bytes) {
  std::string name;
  for (char c : file_name) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ? c : '_';
  if (name.empty() || name.starts_with('.')) name = "nccl_trace_" + name;
  std::string dir = run_dir + "/" + std::string(kFlightDumpDir);
  if (auto made = posix::make_dir_with_parents(dir, 0700); !made) return made.error();
  if (auto written = posix::write_file_atomic(dir + "/" + name, bytes, 0600); !written) return written.error();
  return std::string(kFlightDumpDir) + "/" + name;
}

std::string format_flight_dumps(const std::map<int, std::map<std::string, std::string>>& notes,
                                const std::function<std::string(int)>& node_of, const std::string& run_dir) {
  std::string text;
  std::string dir = std::filesystem::absolute(run_dir).lexically_normal().string();
  for (const auto& [rank, noted] : notes) {
    std::string node = node_of(rank);
    auto saved = noted.find("flight-recorder-saved");
    std::vector<std::string_view> here;
    if (saved != noted.end()) here = split_lines(saved->second);
    for (auto path : here) text += fmt::format("  rank {} (on {}): {}/{}\n", rank, node, dir, path);
    auto dumps = noted.find("flight-recorder");
    if (dumps == noted.end()) continue;
    for (auto path : split_lines(dumps->second)) {
      std::string name = std::filesystem::path(std::string(path)).filename().string();
      bool copied = std::any_of(here.begin(), here.end(), [&](std::string_view p) { return p.ends_with("/" + name); });
      if (!copied) text += fmt::format("  rank {}: {} on {} (too large to bring here)\n", rank, path, node);
    }
  }
  if (text.empty()) return text;
  return fmt::format("\nPyTorch's flight recorder dumped the last collectives of each rank (compare them with torch's "
                     "fr_trace: torchfrtrace {}/{} -p nccl_trace_rank_, or read one with python -c \"import pickle; "
                     "print(pickle.load(open(PATH, 'rb')))\"):\n{}",
                     dir, kFlightDumpDir, text);
}

}  // namespace muster::launch
