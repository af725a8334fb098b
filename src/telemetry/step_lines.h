// Steps told by text, for programs the Python hook cannot count (docs/design/telemetry.md, "Step sources"):
// - the step marker: lines the program writes to $MUSTER_STEP_FILE (a FIFO the agent reads), "step" with optional
//   "rank=R" (a launcher worker with several ranks), "wait=SECONDS" and "compute=SECONDS";
// - `launch --step-pattern REGEX`: an output line that matches is one step of the rank that printed it;
// - tqdm's progress ("45/100 [00:04<00:05, 10.02it/s]"): the counter's increase is the number of steps.
// OutputSteps scans a worker's output chunks as the agent reads them (the bytes are not copied unless a line is
// cut by a chunk's end; a line longer than kMaxLine is ignored). Pure; the agent feeds it (agent/step_sources.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/samples.h"

namespace muster::telemetry {

struct MarkerLine {
  std::optional<uint32_t> rank;
  std::optional<double> wait_s;
  std::optional<double> compute_s;
};
// "step", "step rank=3 wait=0.012": nullopt for anything else (a line that does not start with the word "step").
std::optional<MarkerLine> parse_marker_line(std::string_view line);

// tqdm's counter in a progress line ("45/100 [..., 3.2it/s]", "45it [00:04, 10.02it/s]", "s/it"); nullopt when
// the line is not one.
std::optional<uint64_t> parse_tqdm_count(std::string_view line);

class OutputSteps {
 public:
  static constexpr size_t kMaxLine = 4096;
  // `pattern`: ECMAScript regex (empty: none); `tqdm`: count tqdm's progress too.
  OutputSteps(std::shared_ptr<const std::regex> pattern, bool tqdm) : pattern_(std::move(pattern)), tqdm_(tqdm) {}

  // A chunk of one stream (stdout and stderr each have their own OutputSteps).
  void feed(std::string_view chunk);
  // Steps seen since the last take: matched lines (pattern) and tqdm's counter increase.
  uint32_t take_pattern_steps();
  uint32_t take_tqdm_steps();
  // Whether a step was seen since the last takes (nothing taken).
  bool pending() const { return pattern_steps_ > 0 || tqdm_steps_ > 0; }

 private:
  void line(std::string_view text);

  std::shared_ptr<const std::regex> pattern_;
  bool tqdm_;
  std::string partial_;
  bool overlong_ = false;
  uint32_t pattern_steps_ = 0;
  uint32_t tqdm_steps_ = 0;
  std::optional<uint64_t> tqdm_last_;
};

// A pattern compiled, or an error naming it.
Result<std::shared_ptr<const std::regex>> compile_step_pattern(const std::string& pattern);

}  // namespace muster::telemetry
