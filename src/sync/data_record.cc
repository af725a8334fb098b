#include "sync/data_record.h"

namespace muster::sync {

void put_record_header(char* out, uint32_t size, uint64_t sequence) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  for (int i = 0; i < 8; ++i) out[4 + i] = static_cast<char>((sequence >> (8 * i)) & 0xff);
}

uint32_t record_size(const char* header) {
  uint32_t size = 0;
  for (int i = 3; i >= 0; --i) size = (size << 8) | static_cast<unsigned char>(header[i]);
  return size;
}

uint64_t record_sequence(const char* header) {
  uint64_t sequence = 0;
  for (int i = 7; i >= 0; --i) sequence = (sequence << 8) | static_cast<unsigned char>(header[4 + i]);
  return sequence;
}

}  // namespace muster::sync
