#include "protocol/wire.h"

#include <cassert>
#include <limits>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

namespace muster::protocol {

namespace {

template <typename T>
void put_le(std::string& out, T value) {
  auto bits = static_cast<std::make_unsigned_t<T>>(value);
  for (size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<char>(bits & 0xFF));
    bits = static_cast<std::make_unsigned_t<T>>(bits >> 8);
  }
}

template <typename T>
T get_le(const char* p) {
  std::make_unsigned_t<T> bits = 0;
  for (size_t i = sizeof(T); i-- > 0;) {
    bits = static_cast<std::make_unsigned_t<T>>((bits << 8) | static_cast<unsigned char>(p[i]));
  }
  return static_cast<T>(bits);
}

}  // namespace

void WireWriter::u8(uint8_t value) {
  out_.push_back(static_cast<char>(value));
}
void WireWriter::u32(uint32_t value) {
  put_le(out_, value);
}
void WireWriter::i32(int32_t value) {
  put_le(out_, value);
}
void WireWriter::u64(uint64_t value) {
  put_le(out_, value);
}
void WireWriter::i64(int64_t value) {
  put_le(out_, value);
}

void WireWriter::str(std::string_view bytes) {
  assert(bytes.size() <= std::numeric_limits<uint32_t>::max());
  u32(static_cast<uint32_t>(bytes.size()));
  out_.append(bytes);
}

void WireWriter::str_list(const std::vector<std::string>& items) {
  assert(items.size() <= std::numeric_limits<uint32_t>::max());
  u32(static_cast<uint32_t>(items.size()));
  for (const auto& item : items) str(item);
}

void WireWriter::u32_list(const std::vector<uint32_t>& items) {
  assert(items.size() <= std::numeric_limits<uint32_t>::max());
  u32(static_cast<uint32_t>(items.size()));
  for (uint32_t item : items) u32(item);
}

const char* WireReader::take(size_t size, const char* field) {
  if (failed_) return nullptr;
  if (size > remaining()) {
    fail(fmt::format("field '{}' needs {} bytes at offset {} but only {} are left", field, size, pos_,
                     remaining()));
    return nullptr;
  }
  const char* p = bytes_.data() + pos_;
  pos_ += size;
  return p;
}

uint8_t WireReader::u8(const char* field) {
  const char* p = take(1, field);
  return p ? static_cast<uint8_t>(*p) : 0;
}

uint32_t WireReader::u32(const char* field) {
  const char* p = take(4, field);
  return p ? get_le<uint32_t>(p) : 0;
}

int32_t WireReader::i32(const char* field) {
  const char* p = take(4, field);
  return p ? get_le<int32_t>(p) : 0;
}

uint64_t WireReader::u64(const char* field) {
  const char* p = take(8, field);
  return p ? get_le<uint64_t>(p) : 0;
}

int64_t WireReader::i64(const char* field) {
  const char* p = take(8, field);
  return p ? get_le<int64_t>(p) : 0;
}

std::string WireReader::str(const char* field) { return std::string(str_view(field)); }

std::string_view WireReader::str_view(const char* field) {
  uint32_t size = u32(field);
  const char* p = take(size, field);
  return p ? std::string_view(p, size) : std::string_view();
}

std::vector<std::string> WireReader::str_list(const char* field) {
  uint32_t count = u32(field);
  std::vector<std::string> items;
  if (failed_) return items;
  if (count > remaining() / 4) {
    fail(fmt::format("field '{}' claims {} elements at offset {} but only {} bytes are left", field, count,
                     pos_, remaining()));
    return items;
  }
  items.reserve(count);
  for (uint32_t i = 0; i < count && !failed_; ++i) items.push_back(str(field));
  if (failed_) items.clear();
  return items;
}

std::vector<uint32_t> WireReader::u32_list(const char* field) {
  uint32_t count = u32(field);
  std::vector<uint32_t> items;
  if (failed_) return items;
  if (count > remaining() / 4) {
    fail(fmt::format("field '{}' claims {} numbers at offset {} but only {} bytes are left", field, count, pos_,
                     remaining()));
    return items;
  }
  items.reserve(count);
  for (uint32_t i = 0; i < count && !failed_; ++i) items.push_back(u32(field));
  return items;
}

void WireReader::fail(std::string message) {
  if (failed_) return;
  failed_ = true;
  failure_ = std::move(message);
}

}  // namespace muster::protocol
