#include "telemetry/step_ring.h"

#include <algorithm>
#include <cstring>

namespace muster::telemetry {
namespace {

template <typename T>
T load(std::string_view bytes, size_t at) {
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof(T));  // x86-64 and aarch64 are little-endian, as the format
  return value;
}

template <typename T>
void store(std::vector<char>& bytes, size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

}  // namespace

StepRingRead read_step_ring(std::string_view bytes, uint64_t after) {
  StepRingRead read;
  if (bytes.size() < kStepRingHeader || bytes.substr(0, 8) != kStepRingMagic) return read;
  uint32_t capacity = load<uint32_t>(bytes, 8);
  if (capacity == 0 || bytes.size() < kStepRingHeader + uint64_t{capacity} * kStepRingRecord) return read;
  read.valid = true;
  read.rank = load<int32_t>(bytes, 12);
  read.pid = load<uint32_t>(bytes, 16);
  read.flags = load<uint32_t>(bytes, 20);
  read.count = load<uint64_t>(bytes, 24);
  if (read.count <= after) return read;
  uint64_t first = std::max<uint64_t>(after, read.count > capacity ? read.count - capacity : 0);
  for (uint64_t i = first; i < read.count; ++i) {
    size_t at = kStepRingHeader + (i % capacity) * kStepRingRecord;
    StepRecord record{load<uint64_t>(bytes, at), load<uint64_t>(bytes, at + 8), load<uint32_t>(bytes, at + 16),
                      load<uint32_t>(bytes, at + 20)};
    if (record.index != i + 1) continue;  // overwritten meanwhile, or not written yet
    read.records.push_back(record);
  }
  return read;
}

std::string_view step_ring_put(std::vector<char>& file, uint32_t capacity, int32_t rank, uint32_t pid, uint32_t flags,
                               const StepRecord& record) {
  file.resize(kStepRingHeader + size_t{capacity} * kStepRingRecord);
  std::memcpy(file.data(), kStepRingMagic.data(), 8);
  store(file, 8, capacity);
  store(file, 12, rank);
  store(file, 16, pid);
  store(file, 20, flags);
  size_t at = kStepRingHeader + ((record.index - 1) % capacity) * kStepRingRecord;
  store(file, at, record.index);
  store(file, at + 8, record.end_ns);
  store(file, at + 16, record.step_us);
  store(file, at + 20, record.wait_us);
  store(file, 24, record.index);
  return {file.data(), file.size()};
}

}  // namespace muster::telemetry
