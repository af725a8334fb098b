#include "exec/run_exec.h"

#include <cstdio>

#include <fmt/core.h>

#include "exec/gather.h"
#include "exec/node_exec.h"
#include "posix/fd.h"
#include "posix/signals.h"
#include "util/shell_quote.h"

namespace muster::exec {
namespace {

// What the terminal sees while the command runs: live lines behind prefixes; with -b/--diff only stderr (as
// clush), or every line with --live; nothing for JSON.
class Printer final : public ExecWatcher {
 public:
  Printer(const std::vector<head::PoolNode>& nodes, ExecView view, bool live_too)
      : nodes_(nodes), view_(view), live_too_(live_too) {}

  void on_output(size_t node, OutStream stream, std::string_view bytes) override {
    if (!shows(stream)) return;
    write(stream, lines_.feed(nodes_[node].name, stream, bytes));
  }
  void on_ended(size_t node) override {
    for (OutStream stream : {OutStream::out, OutStream::err}) {
      if (shows(stream)) write(stream, lines_.finish(nodes_[node].name, stream));
    }
  }
  void on_note(const std::string& text) override { write(OutStream::err, "muster exec: " + text + "\n"); }

 private:
  bool shows(OutStream stream) const {
    if (view_ == ExecView::json) return false;
    return view_ == ExecView::live || live_too_ || stream == OutStream::err;
  }
  static void write(OutStream stream, const std::string& text) {
    if (!text.empty()) (void)posix::write_all(stream == OutStream::err ? 2 : 1, text);
  }

  const std::vector<head::PoolNode>& nodes_;
  ExecView view_;
  bool live_too_;
  LiveLines lines_;
};

Result<NodeExecRequest> make_request(const ExecOptions& options) {
  auto selected = head::resolve_hosts(options.connect.hosts);
  if (!selected) return selected.error();
  auto transport = head::choose_transport(options.transport, options.connect.hosts, *selected);
  if (!transport) return transport.error();
  NodeExecRequest request;
  for (const auto& node : *selected) request.nodes.push_back({node.host.name, node.host.destination()});
  head::PoolOptions& pool = request.pool;
  pool.transport = *transport;
  pool.ssh.connect_timeout_s = options.connect.connect_timeout_s;
  pool.ssh.config_file = options.connect.ssh_config;
  pool.ssh.kex = options.connect.ssh_kex;
  pool.ssh.cipher = options.connect.ssh_cipher;
  pool.ssh.extra_options = options.ssh_options;
  pool.ssh.multiplex = !options.no_multiplex;
  pool.fanout = options.connect.fanout;
  pool.fall_back_to_star = options.connect.fall_back_to_star;
  pool.virtual_nodes = *transport == transport::TransportKind::local && !head::all_local(*selected);
  auto env = launch::head_environment(options.env);
  if (!env) return env.error();
  for (const auto& [name, value] : *env) request.env.push_back(name + "=" + value);
  request.argv = node_argv(options.command);
  request.cwd = options.chdir;
  request.timeout_ms = static_cast<int>(options.timeout_s * 1000);
  request.keep_output = options.view != ExecView::live;
  return request;
}

void print_summary(const ExecOptions& options, const ExecResult& result) {
  std::string out;
  if (options.view == ExecView::gather) out = format_gathered(gather_outputs(result.outcomes));
  if (options.view == ExecView::diff) out = format_diffs(gather_outputs(result.outcomes, true));
  if (options.view == ExecView::json) {
    auto json = outcomes_json(result.outcomes);
    if (result.interrupted) json["exit_code"] = kInterruptedStatus;
    out = json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (!out.empty()) (void)posix::write_all(1, out);
  std::string err;
  for (const auto& line : failure_lines(result.outcomes, options.timeout_s)) err += "muster exec: " + line + "\n";
  if (!err.empty()) (void)posix::write_all(2, err);
}

}  // namespace

std::vector<std::string> node_argv(const std::vector<std::string>& command) {
  return {"/bin/sh", "-c", command.size() == 1 ? command.front() : shell_join(command)};
}

Result<int> run_exec(const ExecOptions& options) {
  posix::SignalBlock signals;  // before any agent starts: Ctrl-C is the loop's to handle
  auto request = make_request(options);
  if (!request) return request.error();
  Printer printer(request->nodes, options.view, options.live_too);
  auto result = exec_on_nodes(*request, printer);
  if (!result) return result.error();
  print_summary(options, *result);
  return result->interrupted ? kInterruptedStatus : worst_exit_status(result->outcomes);
}

}  // namespace muster::exec
