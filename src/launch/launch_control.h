// LaunchControl: the running job's control socket as the launch serves it (docs/control-protocol.md): the job's
// registry record and socket (JobControl), the attach clients (AttachHub), and one handler per request type
// (head/control_protocol.h), looked up in a table. `stack` starts (or joins) a stack round; `stop` is the Ctrl-C
// path of the job machine; `status` reads the machine; `attach` hands the client to the hub; `top` reads the
// telemetry hub.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "head/control_protocol.h"
#include "launch/attach_hub.h"
#include "launch/job_control.h"
#include "launch/job_machine.h"
#include "launch/launch_output.h"
#include "launch/stack_rounds.h"
#include "launch/telemetry_hub.h"

namespace muster::launch {

class LaunchControl {
 public:
  struct Facts {  // the attach hello
    std::string prefix;
    int world_size = 0, nodes = 0, max_local_world_size = 0;
  };
  // Opens the socket and writes the record; a failure is a notice (the job runs without a control channel).
  LaunchControl(head::JobRecord record, const Facts& facts, posix::EventLoop& loop, JobMachine& machine,
                StackRounds& stacks, LaunchOutput& output, int grace_ms, std::function<int64_t()> clock);
  ~LaunchControl();

  bool open() const { return control_ != nullptr; }
  const std::string& run_dir() const;
  // Serves what arrived since the last round (requests, clients gone).
  void serve();
  void stack_done(const StackResult& result);  // replies to the clients that waited for the round
  // The record follows the job: each attempt's layout and the excluded nodes (`muster ps`, `muster logs`).
  void attempt_started(const Attempt& attempt);
  void notices_from_clients();  // the hub's own notices (a client dropped) shown as the job's
  // The job ended: attached clients get the end and up to `flush_ms` to read it; the record says it ended.
  void end(int exit_code, const std::function<void(int)>& wait_ms);
  void finish_unstarted(const std::string& why);
  // `top` answers from the job's telemetry (nullptr: the job has none).
  void set_telemetry(const TelemetryHub* hub) { telemetry_ = hub; }
  // While the pool connects, a `stop` raises SIGINT: the only thing that ends the connect (as Ctrl-C would).
  void set_connecting(bool connecting) { connecting_ = connecting; }

 private:
  void on_stack(int client, const head::StackRequest&);
  void on_attach(int client, const head::AttachRequest&);
  void on_stop(int client, const head::StopRequest& stop);
  void on_status(int client, const head::StatusRequest&);
  void on_top(int client, const head::TopRequest& top);

  std::unique_ptr<JobControl> control_;
  std::unique_ptr<AttachHub> attach_;
  JobMachine& machine_;
  StackRounds& stacks_;
  LaunchOutput& output_;
  int grace_ms_;
  std::function<int64_t()> clock_;
  std::map<std::string, std::function<void(int, const head::ControlCall&)>> handlers_;
  std::string fallback_run_dir_;
  bool connecting_ = false;
  const TelemetryHub* telemetry_ = nullptr;
};

}  // namespace muster::launch
