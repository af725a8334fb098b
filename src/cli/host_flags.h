// The flags that select hosts (-H, -w, -x, --num-nodes and the slot filters) and reach them (--connect-timeout,
// --ssh-config), shared by the subcommands; what they fill is the head's (head/host_selection.h, head/connect.h).
#pragma once

#include <CLI/CLI.hpp>

#include "head/connect.h"
#include "head/host_selection.h"

namespace muster::cli {

// `slot_filters` false leaves out the options about slots (--include/--exclude/--nproc-per-node), for commands
// that act on nodes, not ranks (sync, whose --exclude is rsync's).
void add_host_options(CLI::App& app, head::HostSelection& options, bool slot_filters = true);

// The host options plus --connect-timeout, --ssh-config, --ssh-kex and --ssh-cipher.
void add_connect_options(CLI::App& app, head::ConnectOptions& options, bool slot_filters = true);

// --ssh-kex (also MUSTER_SSH_KEX): the key exchange muster asks ssh for (transport/ssh_kex.h).
void add_ssh_kex_option(CLI::App& app, std::string& kex);
// --ssh-cipher (also MUSTER_SSH_CIPHER): the ciphers muster asks ssh for (transport/ssh_cipher.h).
void add_ssh_cipher_option(CLI::App& app, std::string& cipher);
// --fanout N: the launch tree's width (head/agent_pool.h; 0: the head connects to every node).
void add_fanout_option(CLI::App& app, size_t& fanout);

}  // namespace muster::cli
