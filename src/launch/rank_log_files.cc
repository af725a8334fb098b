#include "launch/rank_log_files.h"

#include "posix/fd.h"
#include "posix/file.h"

namespace muster::launch {
namespace {

constexpr size_t kBufferBytes = 64 * 1024;

class PrivateLogSink final : public logs::ByteSink {
 public:
  PrivateLogSink(posix::Fd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  ~PrivateLogSink() override { (void)flush(); }

  // Small pieces are gathered; a piece that would fill the buffer goes out after what is buffered, in its own
  // write: a rank printing at full speed costs no copy here.
  Result<void> write(std::string_view bytes) override {
    if (buffer_.size() + bytes.size() < kBufferBytes) {
      buffer_.append(bytes);
      return {};
    }
    if (auto flushed = flush(); !flushed) return flushed;
    auto written = posix::write_all(fd_.get(), bytes);
    if (!written) return make_error(ErrorKind::io, "cannot write log file {}: {}", path_, written.error().message);
    return {};
  }
  Result<void> flush() override {
    if (buffer_.empty()) return {};
    auto written = posix::write_all(fd_.get(), buffer_);
    buffer_.clear();  // a failed write is reported once; the next bytes do not repeat what failed
    if (!written) return make_error(ErrorKind::io, "cannot write log file {}: {}", path_, written.error().message);
    return {};
  }

 private:
  posix::Fd fd_;
  std::string path_;
  std::string buffer_;
};

}  // namespace

Result<void> make_run_dir(const std::string& dir) {
  auto made = posix::make_dir_with_parents(dir, kRunDirMode);
  if (!made) return make_error(ErrorKind::io, "cannot create the run directory: {}", made.error().message);
  return {};
}

logs::RankLogSet::SinkOpener private_log_opener() {
  return [](const std::filesystem::path& path, bool create) -> Result<std::unique_ptr<logs::ByteSink>> {
    auto fd = posix::open_append(path.string(), create, kRunFileMode);
    if (!fd) {
      return make_error(ErrorKind::io, "cannot {} log file {}: {}", create ? "create" : "open", path.string(),
                        fd.error().message);
    }
    return std::unique_ptr<logs::ByteSink>(new PrivateLogSink(std::move(*fd), path.string()));
  };
}

}  // namespace muster::launch
