// A ByteSink that writes a regular file through stdio (buffered; flush() or destruction writes it out).
// Opening truncates an existing file. Writes to a local file may block briefly on disk - acceptable for
// log files, which is why the terminal, not this, is the output that goes through the event loop.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>

#include "logs/byte_sink.h"

namespace muster::logs {

class FileSink final : public ByteSink {
 public:
  static Result<std::unique_ptr<FileSink>> open(const std::filesystem::path& path);
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
