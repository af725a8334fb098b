// The step sources' pure parts: the hook's ring file, marker lines, tqdm and pattern lines, one interval's figures.
#include <gtest/gtest.h>

#include "telemetry/step_lines.h"
#include "telemetry/step_ring.h"
#include "telemetry/step_window.h"

namespace muster::telemetry {
namespace {

TEST(StepRing, RecordsAfterTheLastRead) {
  std::vector<char> file;
  for (uint64_t i = 1; i <= 5; ++i) step_ring_put(file, 4, 3, 99, kStepRingWaitMeasured, {i, i * 10, 1000 + static_cast<uint32_t>(i), 7});
  std::string_view bytes(file.data(), file.size());
  auto all = read_step_ring(bytes, 0);
  ASSERT_TRUE(all.valid);
  EXPECT_EQ(all.rank, 3);
  EXPECT_EQ(all.pid, 99u);
  EXPECT_EQ(all.count, 5u);
  ASSERT_EQ(all.records.size(), 4u);  // the ring holds 4: step 1 was overwritten
  EXPECT_EQ(all.records.front().index, 2u);
  EXPECT_EQ(all.records.back().step_us, 1005u);
  auto later = read_step_ring(bytes, 4);
  ASSERT_EQ(later.records.size(), 1u);
  EXPECT_EQ(later.records[0].wait_us, 7u);
  EXPECT_TRUE(read_step_ring(bytes, 5).records.empty());
}

TEST(StepRing, ARecordBeingRewrittenIsSkipped) {
  std::vector<char> file;
  for (uint64_t i = 1; i <= 3; ++i) step_ring_put(file, 8, 0, 1, 0, {i, 0, 100, 0});
  file[64 + 24] = 9;  // record 2's index no longer says 2
  auto read = read_step_ring(std::string_view(file.data(), file.size()), 0);
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(read.records[1].index, 3u);
}

TEST(StepRing, NotARing) {
  EXPECT_FALSE(read_step_ring("", 0).valid);
  EXPECT_FALSE(read_step_ring(std::string(64, 'x'), 0).valid);
  std::vector<char> file;
  step_ring_put(file, 8, 0, 1, 0, {1, 0, 100, 0});
  file.resize(100);  // cut short
  EXPECT_FALSE(read_step_ring(std::string_view(file.data(), file.size()), 0).valid);
}

TEST(StepLines, MarkerLines) {
  EXPECT_TRUE(parse_marker_line("step"));
  auto m = parse_marker_line("step rank=5 wait=0.012 compute=0.2\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m->rank, 5u);
  EXPECT_DOUBLE_EQ(*m->wait_s, 0.012);
  EXPECT_DOUBLE_EQ(*m->compute_s, 0.2);
  EXPECT_FALSE(parse_marker_line("stepping"));
  EXPECT_FALSE(parse_marker_line("epoch 1"));
  auto bad = parse_marker_line("step rank=x wait=-1");
  ASSERT_TRUE(bad);
  EXPECT_FALSE(bad->rank);
  EXPECT_FALSE(bad->wait_s);
}

TEST(StepLines, TqdmCounters) {
  EXPECT_EQ(*parse_tqdm_count(" 45%|████▌     | 45/100 [00:04<00:05, 10.02it/s]"), 45u);
  EXPECT_EQ(*parse_tqdm_count("train: 7/1000 [00:10<23:41,  1.43s/it, loss=0.3]"), 7u);
  EXPECT_EQ(*parse_tqdm_count("123it [00:04, 30.12it/s]"), 123u);
  EXPECT_EQ(*parse_tqdm_count("  0%|          | 0/100 [00:00<?, ?it/s]"), 0u);
  EXPECT_FALSE(parse_tqdm_count("Downloading: 45/100 [00:04<00:05, 10.02MB/s]"));
  EXPECT_FALSE(parse_tqdm_count("[rank 0] loss 0.5"));
}

TEST(StepLines, TqdmBarsAcrossChunksAndCarriageReturns) {
  OutputSteps steps(nullptr, true);
  steps.feed("\r  0%|          | 0/50 [00:00<?, ?it/s]");
  steps.feed("\r 10%|#         | 5/50 [00:01<00:09,  5.00it/s]\r 2");
  steps.feed("0%|##        | 10/50 [00:02<00:08,  5.00it/s]\r");
  EXPECT_EQ(steps.take_tqdm_steps(), 10u);
  EXPECT_EQ(steps.take_tqdm_steps(), 0u);
  steps.feed("\r100%|##########| 50/50 [00:10<00:00,  5.00it/s]\n");
  steps.feed("\r  4%|          | 2/50 [00:00<00:09,  5.00it/s]\r");  // the next epoch's bar
  EXPECT_EQ(steps.take_tqdm_steps(), 42u);
  EXPECT_EQ(steps.take_pattern_steps(), 0u);
}

TEST(StepLines, PatternLines) {
  auto pattern = compile_step_pattern(R"(^iter \d+ )");
  ASSERT_TRUE(pattern);
  OutputSteps steps(*pattern, false);
  steps.feed("iter 1 loss 2.0\niter 2 loss 1.9\nvalid iter 3\nit");
  steps.feed("er 4 loss 1.8\n");
  EXPECT_EQ(steps.take_pattern_steps(), 3u);
  steps.feed(std::string(OutputSteps::kMaxLine + 10, 'x'));
  steps.feed("iter 5 cut after an overlong line\niter 6 x\n");
  EXPECT_EQ(steps.take_pattern_steps(), 1u);
  EXPECT_FALSE(compile_step_pattern("iter ("));
  EXPECT_NE(compile_step_pattern("(").error().message.find("--step-pattern"), std::string::npos);
}

TEST(StepWindow, PerStepTimesWithWaits) {
  StepWindow w;
  for (uint32_t t : {100000, 110000, 120000, 300000}) w.step(t, 20000);
  RankSample s;
  w.close(1000, s);
  EXPECT_EQ(s.steps, 4u);
  EXPECT_EQ(s.step_p50_us, 110000u);
  EXPECT_EQ(s.step_p95_us, 300000u);
  EXPECT_EQ(s.step_mean_us, 157500u);
  EXPECT_EQ(s.wait_us, 20000u);
  EXPECT_EQ(s.compute_us, 137500u);
  EXPECT_TRUE(w.empty());
  w.close(1000, s);
  EXPECT_EQ(s.steps, 0u);
  EXPECT_EQ(s.wait_us, kNone);
}

TEST(StepWindow, CountsAndMarks) {
  StepWindow w;
  w.count(4);
  RankSample s;
  w.close(2000, s);
  EXPECT_EQ(s.steps, 4u);
  EXPECT_EQ(s.step_mean_us, 500000u);
  EXPECT_EQ(s.step_p50_us, 0u);
  EXPECT_EQ(s.wait_us, kNone);
  w.mark(1000, std::nullopt);  // its start is unknown: counted only
  w.mark(1250, 50000);
  w.mark(1500, 50000);
  w.close(1000, s);
  EXPECT_EQ(s.steps, 3u);
  EXPECT_EQ(s.step_p50_us, 250000u);
  EXPECT_EQ(s.wait_us, 50000u);
  EXPECT_EQ(s.compute_us, 200000u);
}

}  // namespace
}  // namespace muster::telemetry
