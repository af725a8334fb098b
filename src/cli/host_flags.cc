#include "cli/host_flags.h"

#include "cli/project_config.h"
#include "transport/ssh_cipher.h"
#include "transport/ssh_kex.h"

namespace muster::cli {

void add_host_options(CLI::App& app, head::HostSelection& options, bool slot_filters) {
  // `@name` in a hostlist: the config files' node groups, looked up once a hostlist is given (here or in a file).
  auto with_groups = [&options](const std::string&) { options.groups = configured_node_groups(); };
  app.add_option("-H,--hostfile", options.hostfile, "DeepSpeed/MPI hostfile: 'host slots=N' per line")
      ->type_name("FILE")
      ->group("Hosts");
  app.add_option("-w,--hosts", options.hosts,
                 "hostlist: node[1-4],user@gpu[01-02],-node3, @group ([groups] in muster.toml) or ^FILE")
      ->each(with_groups)
      ->group("Hosts");
  app.add_option("-x,--exclude-hosts", options.exclude_hosts, "hostlist of hosts to leave out (@group too)")
      ->each(with_groups)
      ->group("Hosts");
  app.add_option("--num-nodes", options.selection.num_nodes, "use only the first N nodes")->group("Hosts");
  if (!slot_filters) return;
  app.add_option("--include", options.selection.include, "DeepSpeed filter: host1:0,1@host2")->group("Hosts");
  app.add_option("--exclude", options.selection.exclude, "DeepSpeed filter: host1:0@host3")->group("Hosts");
  app.add_option("--nproc-per-node", options.selection.nproc_per_node, "workers per node (default: slots)")
      ->group("Hosts");
}

void add_connect_options(CLI::App& app, head::ConnectOptions& options, bool slot_filters) {
  add_host_options(app, options.hosts, slot_filters);
  app.add_option("--connect-timeout", options.connect_timeout_s, "seconds to reach a node")->group("ssh")
      ->check(CLI::Range(1, 600));
  app.add_option("--ssh-config", options.ssh_config, "ssh -F FILE instead of ~/.ssh/config")->type_name("FILE")->group("ssh");
  add_ssh_kex_option(app, options.ssh_kex);
  add_ssh_cipher_option(app, options.ssh_cipher);
}

void add_fanout_option(CLI::App& app, size_t& fanout) {
  app.add_option("--fanout", fanout,
                 "the most nodes the head (and each node) starts agents on; the others are started by those, "
                 "node to node over ssh (a tree, like Slurm's TreeWidth; needs node-to-node ssh, else the head "
                 "reaches a node directly and says why); 0: the head reaches every node itself")
      ->capture_default_str()
      ->group("ssh");
}

void add_ssh_kex_option(CLI::App& app, std::string& kex) {
  app.add_option("--ssh-kex", kex,
                 "ssh key exchange: fast (classic methods, curve25519 first; a fraction of the CPU of OpenSSH 9's "
                 "post-quantum default), default (ssh's own choice, e.g. your ssh_config's), or a KexAlgorithms list")
      ->envname(transport::kKexEnv)
      ->capture_default_str()
      ->check([](const std::string& value) {
        auto ok = transport::check_kex_choice(value);
        return ok ? std::string() : ok.error().message;
      })
      ->group("ssh");
}

void add_ssh_cipher_option(CLI::App& app, std::string& cipher) {
  app.add_option("--ssh-cipher", cipher,
                 "ssh ciphers: auto (AES-GCM first where this CPU has AES instructions, several times faster than "
                 "ssh's chacha20 there), default (ssh's own order, e.g. your ssh_config's), or a Ciphers list")
      ->envname(transport::kCipherEnv)
      ->capture_default_str()
      ->check([](const std::string& value) {
        auto ok = transport::check_cipher_choice(value);
        return ok ? std::string() : ok.error().message;
      })
      ->group("ssh");
}

}  // namespace muster::cli
