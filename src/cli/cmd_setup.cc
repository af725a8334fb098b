// `muster setup ssh|hosts`: flags -> setup::SetupOptions; the work is setup::run_setup_ssh / run_setup_hosts.
#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "setup/run_setup.h"

namespace muster::cli {

int run_setup(const std::vector<std::string>& args) {
  auto app = make_app("setup", "Set up the cluster from this machine: passwordless ssh between all nodes, "
                               "/etc/hosts entries for all nodes.");
  app->require_subcommand(1);
  setup::SetupOptions options;
  for (auto* sub : {app->add_subcommand("ssh", "make `ssh nodeJ` work from every node I without a password"),
                    app->add_subcommand("hosts", "a managed block in /etc/hosts on every node naming every node")}) {
    add_connect_options(*sub, options.connect);
    sub->add_flag("--dry-run", options.dry_run, "show what would change, change nothing");
    if (sub->get_name() == "hosts") {
      sub->add_flag("--fix-loopback", options.fix_loopback,
                    "also drop the node's own name from its 127.0.1.1 line (Debian's default)");
    }
  }
  std::string ssh_matrix = "fast";
  app->get_subcommand("ssh")
      ->add_option("--ssh-matrix", ssh_matrix,
                   "how to verify the result: fast (every pair's address, host key and authorized key, plus a ring "
                   "of N real handshakes) or full (N×(N-1) real handshakes)")
      ->check(CLI::IsMember({"fast", "full"}))
      ->capture_default_str();
  if (auto code = parse_command_line(*app, args)) return *code;
  auto matrix = doctor::parse_ssh_matrix_mode(ssh_matrix);
  if (!matrix) {
    return report_error(make_error(ErrorKind::usage, "--ssh-matrix {}: want fast or full", ssh_matrix));
  }
  options.ssh_matrix = *matrix;
  auto done = app->got_subcommand("ssh") ? setup::run_setup_ssh(options) : setup::run_setup_hosts(options);
  if (!done) return report_error(done.error());
  return kExitOk;
}

}  // namespace muster::cli
