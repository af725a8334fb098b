// A ByteSink that writes a regular file through stdio (buffered; flush() or destruction writes it out).
// `create` truncates an existing file, `append` adds to it. Writes to a local file may block briefly on disk -
// acceptable for log files, which is why the terminal, not this, is the output that goes through the event loop.
// The file gets the process's default mode (umask); the head uses private posix sinks instead
// (launch/rank_log_files.h).
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>

#include "logs/byte_sink.h"

namespace muster::logs {

class FileSink final : public ByteSink {
 public:
  enum class Mode { create, append };
  static Result<std::unique_ptr<FileSink>> open(const std::filesystem::path& path, Mode mode = Mode::create);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  Result<void> write(std::string_view bytes) override;
  Result<void> flush() override;

 private:
  FileSink(std::FILE* file, std::filesystem::path path) : file_(file), path_(std::move(path)) {}

  std::FILE* file_;
  std::filesystem::path path_;
};

}  // namespace muster::logs
