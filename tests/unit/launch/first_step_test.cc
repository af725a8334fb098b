// FirstStepWatch: an attempt's first step, known only where steps are counted.
#include "launch/first_step.h"

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

telemetry::RankSample rank(uint32_t number, uint32_t source, uint32_t steps, uint32_t total, uint32_t flags) {
  telemetry::RankSample sample;
  sample.rank = number;
  sample.source = source;
  sample.steps = steps;
  sample.total_steps = total;
  sample.flags = flags;
  return sample;
}

constexpr uint32_t kHook = static_cast<uint32_t>(telemetry::StepSource::hook);

TEST(FirstStepWatch, UnknownWhereNothingCountsSteps) {
  FirstStepWatch watch(false);
  EXPECT_EQ(FirstStep::unknown, watch.of(0));
  watch.add(0, {rank(0, 0, 0, 0, telemetry::kRankOwnCgroup)});  // a shell script: a process, no step source
  EXPECT_EQ(FirstStep::unknown, watch.of(0));
}

TEST(FirstStepWatch, AnOptimizerMadeThenAStep) {
  FirstStepWatch watch(false);
  watch.add(0, {rank(0, 0, 0, 0, 0)});
  watch.add(0, {rank(1, 0, 0, 0, telemetry::kRankStepsCounted)});  // rank 1 made its optimizer
  EXPECT_EQ(FirstStep::not_reached, watch.of(0));
  watch.add(0, {rank(1, kHook, 1, 1, telemetry::kRankStepsCounted)});
  EXPECT_EQ(FirstStep::reached, watch.of(0));
  // Attempts are apart: the next one starts over.
  EXPECT_EQ(FirstStep::unknown, watch.of(1));
  watch.add(1, {rank(1, 0, 0, 0, telemetry::kRankStepsCounted)});
  EXPECT_EQ(FirstStep::not_reached, watch.of(1));
  EXPECT_EQ(FirstStep::reached, watch.of(0));
}

TEST(FirstStepWatch, AStepPatternCountsFromTheStart) {
  FirstStepWatch watch(true);
  EXPECT_EQ(FirstStep::not_reached, watch.of(0));
  watch.add(0, {rank(3, static_cast<uint32_t>(telemetry::StepSource::pattern), 2, 2, 0)});
  EXPECT_EQ(FirstStep::reached, watch.of(0));
}

}  // namespace
}  // namespace muster::launch
