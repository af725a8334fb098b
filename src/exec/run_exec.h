// `muster exec`, whole: a command on every node, through the same transports, launch tree, bootstrap and
// environment policy as `muster launch` (no ranks, no rendezvous); its output live behind `node: ` prefixes, or
// gathered (-b, as clush -b) or as differences from the most common output (--diff), or JSON; at the end, the
// nodes that failed, timed out or could not be reached, folded. The exit status is the worst of any node.
#pragma once

#include <string>
#include <vector>

#include "head/connect.h"
#include "launch/head_env.h"
#include "util/result.h"

namespace muster::exec {

enum class ExecView { live, gather, diff, json };

struct ExecOptions {
  head::ConnectOptions connect;     // hosts (groups expanded there), --connect-timeout, --ssh-config, --ssh-kex, --fanout
  std::string transport = "auto";   // head/connect.h choose_transport
  std::vector<std::string> ssh_options;
  bool no_multiplex = false;
  std::vector<std::string> command;  // one word: a shell command line (`'df -h | tail -1'`); more: argv, kept exact
  ExecView view = ExecView::live;
  bool live_too = false;  // with gather or diff: every line live as well, the summary at the end (clush -b can't)
  double timeout_s = 0;  // 0: no limit
  std::string chdir;     // empty: the node user's home, as ssh
  launch::EnvRequest env;
};

// The worst exit status of any node (exit code, 128+signal, 124 timed out, 127 not started, 255 not reached),
// 130 when interrupted; an error only when nothing could run at all.
Result<int> run_exec(const ExecOptions& options);

// The argv each node runs for `command` (see ExecOptions::command): sh -c with the line, or the words quoted.
std::vector<std::string> node_argv(const std::vector<std::string>& command);

}  // namespace muster::exec
