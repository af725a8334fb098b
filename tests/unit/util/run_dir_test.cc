#include "util/run_dir.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(JobRunDir, DefaultPatternAndAsGiven) {
  EXPECT_EQ(job_run_dir("", "20261125-1"), "muster-runs/20261125-1");
  EXPECT_EQ(job_run_dir("/data/run", "20261125-1"), "/data/run");
  EXPECT_EQ(job_run_dir("/p/runs/{job_id}", "20261125-1"), "/p/runs/20261125-1");
  EXPECT_EQ(job_run_dir("{job_id}/x-{job_id}", "j{job_id}"), "j{job_id}/x-j{job_id}");  // no re-expansion
}

}  // namespace
}  // namespace muster
