#include "telemetry/samples.h"

#include <algorithm>
#include <limits>

namespace muster::telemetry {
namespace {

template <typename T>
void append_record(const T& record, std::vector<uint32_t>& out) {
  auto put = [&out](const uint32_t& value) { out.push_back(value); };
  T::fields(record, put);
}

// Reads one record of `width` u32s from `in` at `at`: the fields this version knows, in order; a shorter record
// (an older agent) leaves the rest at their defaults, a longer one (a newer agent) has its extra fields skipped.
template <typename T>
T read_record(const std::vector<uint32_t>& in, size_t at, uint32_t width) {
  T record;
  uint32_t i = 0;
  auto get = [&](uint32_t& value) {
    if (i < width) value = in[at + i];
    ++i;
  };
  T::fields(record, get);
  return record;
}

template <typename T>
std::vector<T> read_records(const std::vector<uint32_t>& in, uint32_t width) {
  std::vector<T> records;
  if (width == 0) return records;
  for (size_t at = 0; at + width <= in.size(); at += width) records.push_back(read_record<T>(in, at, width));
  return records;
}

}  // namespace

const char* step_source_name(StepSource source) {
  switch (source) {
    case StepSource::none: return "none";
    case StepSource::hook: return "hook";
    case StepSource::marker: return "marker";
    case StepSource::pattern: return "pattern";
    case StepSource::tqdm: return "tqdm";
  }
  return "?";
}

std::string throttle_reasons_text(uint32_t bits) {
  static constexpr std::pair<uint32_t, const char*> kNames[] = {
      {kThrottleSwPowerCap, "power cap"},        {kThrottleHwSlowdown, "hardware slowdown"},
      {kThrottleSwThermal, "thermal (software)"}, {kThrottleHwThermal, "thermal (hardware)"},
      {kThrottleHwPowerBrake, "power brake"},    {kThrottleSyncBoost, "sync boost"},
      {kThrottleAppClocks, "application clocks"}, {kThrottleGpuIdle, "idle"},
  };
  std::string text;
  for (const auto& [bit, name] : kNames) {
    if ((bits & bit) == 0) continue;
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

protocol::Telemetry to_message(const NodeSample& sample) {
  protocol::Telemetry message;
  message.unix_ms = sample.unix_ms;
  message.interval_ms = sample.interval_ms;
  append_record(sample.node, message.node);
  message.rank_fields = field_count<RankSample>();
  for (const auto& rank : sample.ranks) append_record(rank, message.ranks);
  message.gpu_fields = field_count<GpuSample>();
  for (const auto& gpu : sample.gpus) append_record(gpu, message.gpus);
  message.notes = sample.notes;
  return message;
}

NodeSample from_message(const protocol::Telemetry& message) {
  NodeSample sample;
  sample.unix_ms = message.unix_ms;
  sample.interval_ms = message.interval_ms;
  sample.node = read_record<NodeFigures>(message.node, 0, static_cast<uint32_t>(message.node.size()));
  sample.ranks = read_records<RankSample>(message.ranks, message.rank_fields);
  sample.gpus = read_records<GpuSample>(message.gpus, message.gpu_fields);
  sample.notes = message.notes;
  return sample;
}

uint32_t permille(uint64_t part, uint64_t whole) {
  if (whole == 0) return kNone;
  uint64_t value = (part * 1000 + whole / 2) / whole;
  return static_cast<uint32_t>(std::min<uint64_t>(value, std::numeric_limits<uint32_t>::max() - 1));
}

}  // namespace muster::telemetry
