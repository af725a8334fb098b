// The step ring: the file through which the injected Python hook (agent/python/sitecustomize.py) tells its agent
// about every training step of a process, without a system call per step (the hook writes into a shared mapping;
// the agent reads the file once a second). One file per process that steps, $MUSTER_STEPS_PREFIX<pid>. Little-
// endian; the hook writes a record, then the header's count, so a reader that sees count N finds records up to N.
//   header (64 bytes): "MSTEP001", u32 capacity, i32 rank (-1: unknown), u32 pid, u32 flags, u64 count, reserved
//   record i (24 bytes, at 64 + (i % capacity) * 24): u64 i + 1, u64 end (CLOCK_MONOTONIC ns), u32 step_us (0: the
//                                                     first step, whose start is unknown), u32 wait_us (time
//                                                     blocked on the other ranks during the step)
// A record overwritten before it was read is lost (its step still counts); one being rewritten while read shows a
// different index and is skipped. Pure: decoding only.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace muster::telemetry {

inline constexpr std::string_view kStepRingMagic = "MSTEP001";
inline constexpr size_t kStepRingHeader = 64;
inline constexpr size_t kStepRingRecord = 24;
inline constexpr uint32_t kStepRingWaitMeasured = 1;  // header flag: the process uses torch.distributed

struct StepRecord {
  uint64_t index = 0;  // 1, 2, ... (the step's number in the process)
  uint64_t end_ns = 0;
  uint32_t step_us = 0;
  uint32_t wait_us = 0;
};

struct StepRingRead {
  bool valid = false;  // the magic and sizes are right
  int32_t rank = -1;
  uint32_t pid = 0;
  uint32_t flags = 0;
  uint64_t count = 0;               // steps the process finished so far
  std::vector<StepRecord> records;  // those after `after`, in order, as far as the ring still holds them
};

// The records after step `after` (0: from the start) in `bytes`, the file's whole content.
StepRingRead read_step_ring(std::string_view bytes, uint64_t after);

// A ring's bytes as the hook writes them (for tests, and the documentation of the format in code).
std::string_view step_ring_put(std::vector<char>& file, uint32_t capacity, int32_t rank, uint32_t pid, uint32_t flags,
                               const StepRecord& record);

}  // namespace muster::telemetry
