#include "launch/launch_control.h"

#include <fmt/core.h>

#include <csignal>

#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/proc.h"

namespace muster::launch {

LaunchControl::LaunchControl(head::JobRecord record, const Facts& facts, posix::EventLoop& loop, JobMachine& machine,
                             StackRounds& stacks, LaunchOutput& output, int grace_ms, std::function<int64_t()> clock)
    : machine_(machine), stacks_(stacks), output_(output), grace_ms_(grace_ms), clock_(std::move(clock)),
      fallback_run_dir_(record.run_dir) {
  std::string job_id = record.job_id;
  auto control = JobControl::open(std::move(record), loop);
  if (!control) {
    output_.notice("no control socket for this job (muster stack, attach and stop will not reach it): " +
                   control.error().message);
    return;
  }
  control_ = std::move(*control);
  nlohmann::json hello{{"job_id", job_id},
                       {"run_dir", control_->record().run_dir},
                       {"prefix", facts.prefix},
                       {"world_size", facts.world_size},
                       {"nodes", facts.nodes},
                       {"max_local_world_size", facts.max_local_world_size}};
  attach_ = std::make_unique<AttachHub>(*control_, std::move(hello));
  output_.set_attach(attach_.get());
  // One handler per request type: the table is the protocol's list of ops.
  auto add = [this]<typename Request>(void (LaunchControl::*handler)(int, const Request&)) {
    handlers_[Request::kOp] = [this, handler](int client, const head::ControlCall& call) {
      (this->*handler)(client, std::get<Request>(call));
    };
  };
  add(&LaunchControl::on_stack);
  add(&LaunchControl::on_attach);
  add(&LaunchControl::on_stop);
  add(&LaunchControl::on_status);
  add(&LaunchControl::on_top);
  control_->set_on_request([this] {
    if (connecting_) serve();
  });
}

LaunchControl::~LaunchControl() { output_.set_attach(nullptr); }

const std::string& LaunchControl::run_dir() const { return control_ ? control_->record().run_dir : fallback_run_dir_; }

void LaunchControl::serve() {
  if (!control_) return;
  for (int client : control_->take_closed()) {
    attach_->forget(client);
    stacks_.forget_client(client);
  }
  for (auto& request : control_->take_requests()) {
    auto call = head::decode_call(request.body);
    if (!call) {
      control_->reply(request.client, head::error_reply(call.error().message));
      continue;
    }
    handlers_.at(head::op_name(*call))(request.client, *call);
  }
}

void LaunchControl::on_stack(int client, const head::StackRequest&) {
  const Attempt* attempt = machine_.current();
  if (!machine_.ranks_running() || !attempt) {
    control_->reply(client, head::error_reply("the job's ranks are not running yet"));
    return;
  }
  std::vector<std::string> names;
  for (size_t node = 0; node < machine_.roster().size(); ++node) names.push_back(machine_.roster().name(node));
  stacks_.take(*attempt, names, false, client, clock_(), "muster stack\n");
}

void LaunchControl::on_attach(int client, const head::AttachRequest&) { attach_->attach(client); }

void LaunchControl::on_stop(int client, const head::StopRequest& stop) {
  bool again = machine_.interrupts() > 0;
  control_->reply(client, head::encode_reply(head::StopReply{stop.kill || again, grace_ms_ / 1000.0}));
  machine_.on_stop(stop.kill, clock_());
  if (connecting_) (void)posix::signal_process(posix::current_pid(), SIGINT);
}

void LaunchControl::on_status(int client, const head::StatusRequest&) {
  head::StatusReply reply;
  reply.job_id = control_->record().job_id;
  reply.run_dir = control_->record().run_dir;
  const auto& roster = machine_.roster();
  if (const Attempt* attempt = machine_.current()) {
    reply.attempt = attempt->number;
    reply.ranks = attempt->plan.world_size;
    reply.nodes = roster.names(attempt->nodes);
    reply.spares = roster.names(roster.spares(attempt->nodes));
  }
  reply.running = machine_.ranks_running();
  std::vector<std::string> excluded;
  for (size_t node : roster.excluded()) excluded.push_back(roster.name(node) + ": " + roster.exclusion(node)->reason);
  for (size_t i = 0; i < excluded.size(); ++i) reply.excluded += (i ? "; " : "") + excluded[i];
  control_->reply(client, head::encode_reply(reply));
}

void LaunchControl::on_top(int client, const head::TopRequest& top) {
  if (!telemetry_) {
    control_->reply(client, head::error_reply("this job has no telemetry (launch --telemetry off)"));
    return;
  }
  nlohmann::json reply = telemetry_->top(top.all_ranks, {top.expand.begin(), top.expand.end()}, clock_());
  reply["ok"] = true;
  control_->reply(client, reply);
}

void LaunchControl::stack_done(const StackResult& result) {
  if (!control_) return;
  for (int client : result.clients) {
    control_->reply(client, head::encode_reply(head::StackReply{result.summary, result.file, result.stacks}));
  }
}

void LaunchControl::attempt_started(const Attempt& attempt) {
  if (!control_) return;
  const auto& roster = machine_.roster();
  control_->rewrite_record([&](head::JobRecord& record) {
    record.attempt = attempt.number;
    record.excluded = roster.names(roster.excluded());
    record.nodes = static_cast<int>(attempt.nodes.size());
    record.ranks = attempt.plan.world_size;
    record.layout.clear();
    for (const auto& node : attempt.plan.nodes) {
      record.layout.push_back({node.host.name, node.first_global_rank, static_cast<int>(node.ranks.size())});
    }
  });
}

void LaunchControl::notices_from_clients() {
  if (!attach_) return;
  for (const auto& text : attach_->take_notices()) output_.notice(text);
}

void LaunchControl::end(int exit_code, const std::function<void(int)>& wait_ms) {
  if (!control_) return;
  control_->finish(exit_code);
  attach_->end(exit_code);
  constexpr int64_t kAttachFlushMs = 2000;  // attached clients get this long to read the end
  int64_t deadline = posix::monotonic_ms() + kAttachFlushMs;
  while (control_->has_pending_output() && posix::monotonic_ms() < deadline) {
    wait_ms(static_cast<int>(deadline - posix::monotonic_ms()));
  }
  output_.set_attach(nullptr);
}

void LaunchControl::finish_unstarted(const std::string& why) {
  if (control_) control_->finish_unstarted(why);
}

}  // namespace muster::launch
