#include "jobs/stack_client.h"

#include <fmt/core.h>

#include "head/control_protocol.h"
#include "head/control_server.h"
#include "head/job_registry.h"

namespace muster::jobs {

Result<int> run_stack(const StackOptions& options) {
  auto job = head::find_job(options.which);
  if (!job) return job.error();
  auto state = head::job_state(*job);
  if (state != head::JobState::running) {
    return make_error(ErrorKind::usage, "job {} is not running ({}); muster why {} tells what happened",
                      job->job_id, head::job_state_name(state), job->job_id);
  }
  int timeout_ms = static_cast<int>(options.timeout_s * 1000);
  auto reply = head::control_request(job->socket, head::encode_call(head::StackRequest{}), timeout_ms);
  if (!reply) return reply.error();
  if (!reply->value("ok", false)) {
    return make_error(ErrorKind::remote, "job {}: {}", job->job_id, reply->value("error", "?"));
  }
  fmt::print("stacks of job {} (all of them: {}):\n{}\n", job->job_id, reply->value("file", ""),
             reply->value("summary", ""));
  if (options.full) fmt::print("\n{}", reply->value("stacks", ""));
  return 0;
}

}  // namespace muster::jobs
