#include "cluster/slurm_job_status.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

constexpr const char* kFailed =
    "JobId=12 JobName=train UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 Account=(null) "
    "QOS=(null) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 "
    "Reboot=0 ExitCode=137:0 RunTime=00:00:04 NodeList=node[1-4] BatchHost=node1 NumNodes=4 "
    "Command=/runs/a b/train.sbatch WorkDir=/work StdOut=/runs/slurm-12.out\n";

TEST(SlurmJob, ParsesStateReasonNodesAndExitCode) {
  auto status = parse_scontrol_job(kFailed);
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(status->state, "FAILED");
  EXPECT_EQ(status->reason, "NonZeroExitCode");
  EXPECT_EQ(status->nodes, "node[1-4]");
  EXPECT_EQ(status->exit_code, 137);
  EXPECT_EQ(status->signal, 0);
  EXPECT_TRUE(job_finished(*status));
  EXPECT_EQ(job_exit_code(*status), 137);
}

TEST(SlurmJob, LiveStatesAreNotFinished) {
  for (const char* state : {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING"}) {
    auto status = parse_scontrol_job(std::string("JobId=1 JobState=") + state + " Reason=None ExitCode=0:0");
    ASSERT_TRUE(status);
    EXPECT_FALSE(job_finished(*status)) << state;
  }
}

TEST(SlurmJob, ExitCodesFollowTheShellConvention) {
  auto code = [](const char* line) { return job_exit_code(parse_scontrol_job(line).value()); };
  EXPECT_EQ(code("JobState=COMPLETED ExitCode=0:0"), 0);
  EXPECT_EQ(code("JobState=CANCELLED ExitCode=0:15"), 143);
  EXPECT_EQ(code("JobState=FAILED ExitCode=3:0"), 3);
  EXPECT_EQ(code("JobState=NODE_FAIL ExitCode=0:0"), 1);
}

TEST(SlurmJob, FieldsMatchWholeNamesOnly) {
  // "OldJobState" must not be read as JobState; a value ends at the next space.
  auto status = parse_scontrol_job("OldJobState=X JobState=RUNNING ExitCode=0:0 MyExitCode=9:9");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->state, "RUNNING");
  EXPECT_EQ(status->exit_code, 0);
}

TEST(SlurmJob, MalformedTextIsAParseError) {
  EXPECT_FALSE(parse_scontrol_job("slurm_load_jobs error: Invalid job id specified"));
  EXPECT_FALSE(parse_scontrol_job("JobState=RUNNING ExitCode=zero"));
  EXPECT_FALSE(parse_scontrol_job("JobState= ExitCode=0:0"));
  EXPECT_EQ(parse_scontrol_job("").error().kind, ErrorKind::parse);
}

}  // namespace
}  // namespace muster::cluster
