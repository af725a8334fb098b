#include "sync/zstd_codec.h"

#include <zstd.h>

namespace muster::sync {

ZstdCompressor::ZstdCompressor() : context_(ZSTD_createCCtx()) {}

void ZstdCompressor::Free::operator()(void* context) const { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(context)); }

bool ZstdCompressor::compress_if_smaller(std::string_view raw, std::string& out) {
  out.resize(ZSTD_compressBound(raw.size()));
  size_t size = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(context_.get()), out.data(), out.size(), raw.data(),
                                  raw.size(), 1);
  if (ZSTD_isError(size) || size >= raw.size() - raw.size() / 10) return false;
  out.resize(size);
  return true;
}

ZstdDecompressor::ZstdDecompressor() : context_(ZSTD_createDCtx()) {}

void ZstdDecompressor::Free::operator()(void* context) const { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(context)); }

bool ZstdDecompressor::decompress(std::string_view packed, size_t raw_size, std::string& out) {
  out.resize(raw_size);
  size_t got = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(context_.get()), out.data(), out.size(), packed.data(),
                                   packed.size());
  return !ZSTD_isError(got) && got == raw_size;
}

}  // namespace muster::sync
