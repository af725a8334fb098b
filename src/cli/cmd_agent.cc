// `muster agent`: hidden; started by the head on every node (docs/agent-protocol.md).
#include "agent/agent.h"
#include "agent/guard.h"
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "container/enter.h"

namespace muster::cli {

int run_agent(const std::vector<std::string>& args) {
  auto app = make_app("agent", "Internal: the per-node agent the head talks to over stdin/stdout.");
  agent::AgentOptions options;
  app->add_option("--nonce", options.nonce, "echoed in the preamble line")->required();
  app->add_option("--heartbeat-ms", options.heartbeat_ms)->check(CLI::Range(50, 600'000));
  app->add_option("--heartbeat-timeout-ms", options.heartbeat_timeout_ms)->check(CLI::Range(100, 3'600'000));
  app->add_option("--lost-head-grace-ms", options.lost_head_grace_ms)->check(CLI::Range(0, 600'000));
  app->add_option("--node-name", options.node_name, "be a virtual node of this name (many agents on one machine)");
  app->add_flag("--in-container", options.in_container, "this agent runs inside the job's container");
  bool guard = false;
  app->add_flag("--guard", guard, "run as the agent's guard (see src/agent/guard.h)");
  if (!args.empty() && args[0] == "--guard") return agent::run_guard();
  std::string staged_in;
  app->add_option("--staged-in", staged_in, "this agent's files were copied into this directory for this start "
                                            "(a running container): removed once running");
  std::string container_spec;
  app->add_option("--container-spec", container_spec,
                  "run the agent inside a container (JSON, see src/container/spec.h): this process becomes the "
                  "container runtime's client");
  if (auto code = parse_command_line(*app, args)) return *code;
  if (!container_spec.empty()) {
    auto spec = container::spec_from_json(container_spec);
    if (!spec) return report_error(spec.error());
    return container::enter_container(*spec, args);
  }
  if (!staged_in.empty()) container::remove_staged_agent(staged_in);
  return agent::run_agent(options);
}

}  // namespace muster::cli
