#include "logs/file_sink.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace muster::logs {
namespace {

Error io_error(std::string_view what, const std::filesystem::path& path, int err) {
  return make_error(ErrorKind::io, "cannot {} log file {}: {}", what, path.string(), std::strerror(err));
}

}  // namespace

Result<std::unique_ptr<FileSink>> FileSink::open(const std::filesystem::path& path, Mode mode) {
  std::FILE* file = std::fopen(path.c_str(), mode == Mode::create ? "wb" : "ab");
  if (file == nullptr) return io_error(mode == Mode::create ? "create" : "open", path, errno);
  return std::unique_ptr<FileSink>(new FileSink(file, path));
}

FileSink::~FileSink() {
  std::fclose(file_);
}

Result<void> FileSink::write(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    return io_error("write", path_, errno);
  return {};
}

Result<void> FileSink::flush() {
  if (std::fflush(file_) != 0) return io_error("flush", path_, errno);
  return {};
}

}  // namespace muster::logs
