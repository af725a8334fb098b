// When the GPU round runs: doctor --gpu always (and says plainly when there are no GPUs: gpu_checks_test), launch
// --preflight only where a node has GPUs.
#include <gtest/gtest.h>

#include "doctor/examine.h"

namespace muster::doctor {
namespace {

TEST(GpuRound, PreflightSkipsItWithoutGpus) {
  std::vector<NodeFacts> none(3);
  EXPECT_FALSE(wants_gpu_round(GpuRound::when_present, none));
  EXPECT_TRUE(wants_gpu_round(GpuRound::always, none));
  EXPECT_FALSE(wants_gpu_round(GpuRound::off, none));
  std::vector<NodeFacts> one(3);
  one[1].has_nvidia_smi = true;
  EXPECT_TRUE(wants_gpu_round(GpuRound::when_present, one));
  EXPECT_FALSE(wants_gpu_round(GpuRound::off, one));
}

}  // namespace
}  // namespace muster::doctor
