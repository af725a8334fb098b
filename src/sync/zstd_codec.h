// zstd contexts for sync's data frames, each owned by one move-only object (freed exactly once). The head
// compresses a chunk when that saves at least 10 %; the node decompresses into a buffer of the announced size.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace muster::sync {

class ZstdCompressor {
 public:
  ZstdCompressor();
  // `raw` compressed at level 1 into `out` when the result is below 90 % of its size; false (and `out`
  // unspecified) when it is not worth it.
  bool compress_if_smaller(std::string_view raw, std::string& out);

 private:
  struct Free {
    void operator()(void* context) const;
  };
  std::unique_ptr<void, Free> context_;
};

class ZstdDecompressor {
 public:
  ZstdDecompressor();
  // Decompresses `packed` into `out`, which must end up exactly `raw_size` bytes; false when it does not.
  bool decompress(std::string_view packed, size_t raw_size, std::string& out);

 private:
  struct Free {
    void operator()(void* context) const;
  };
  std::unique_ptr<void, Free> context_;
};

}  // namespace muster::sync
