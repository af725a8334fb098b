// The field encoding of the agent protocol (docs/agent-protocol.md, section 3): fixed-width little-endian
// integers, `str` as u32 byte count + bytes, `list<str>` and `list<u32>` as u32 element count + elements.
//
// WireWriter appends fields to a caller-owned std::string. WireReader reads fields from a string_view and
// never reads past its end: the first read that does not fit sets a sticky failure (with a message naming
// the field) and every later read returns a zero value, so a decoder reads all fields and checks ok() once.
// Both are pure byte manipulation: no I/O, no knowledge of message types (that is codec.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace muster::protocol {

class WireWriter {
 public:
  explicit WireWriter(std::string& out) : out_(out) {}

  void u8(uint8_t value);
  void u32(uint32_t value);
  void i32(int32_t value);
  void u64(uint64_t value);
  void i64(int64_t value);
  void str(std::string_view bytes);  // asserts bytes.size() fits in a u32
  void str_list(const std::vector<std::string>& items);
  void u32_list(const std::vector<uint32_t>& items);

 private:
  std::string& out_;
};

// Does not own the bytes: they must outlive the reader.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  // `field` names what is being read, for the failure message.
  uint8_t u8(const char* field);
  uint32_t u32(const char* field);
  int32_t i32(const char* field);
  uint64_t u64(const char* field);
  int64_t i64(const char* field);
  std::string str(const char* field);
  // The same field as a view into the reader's bytes (no copy).
  std::string_view str_view(const char* field);
  // The element count is checked against the bytes left (every element takes at least 4), so a hostile
  // count fails at once instead of allocating.
  std::vector<std::string> str_list(const char* field);
  // `list<u32>`: u32 count + that many u32s (the count checked against the bytes left, as for str_list).
  std::vector<uint32_t> u32_list(const char* field);

  // Marks the read as failed (e.g. a field value out of range); the first failure wins.
  void fail(std::string message);

  bool ok() const { return !failed_; }
  const std::string& failure() const { return failure_; }
  size_t offset() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  // Returns a pointer to `size` readable bytes and advances, or nullptr (and fails) if they are not there.
  const char* take(size_t size, const char* field);

  std::string_view bytes_;
  size_t pos_ = 0;
  bool failed_ = false;
  std::string failure_;
};

}  // namespace muster::protocol
