// The per-node launcher command of the container kinds (compose, k8s): torchrun with the node's values in
// front of the user's worker command. The user's command means what it means to `muster launch` -- the
// program every worker runs -- so `python3 train.py --lr 1` becomes `torchrun ... train.py --lr 1`,
// `python -m pkg.train` becomes `torchrun ... -m pkg.train`, and anything else (a shell script, `python -u
// x.py`) runs as is under `torchrun ... --no_python`. Flags use torchrun's underscore spellings, which
// every torchrun version accepts. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace muster::gen {

struct TorchrunValues {
  std::string nnodes, node_rank, master_addr, master_port, nproc_per_node;  // values or $(VAR) references
};

std::vector<std::string> torchrun_command(const TorchrunValues& values,
                                          const std::vector<std::string>& command);

// Every '$' doubled: docker compose interpolates ${VAR} and $VAR in every value and Kubernetes expands
// $(VAR) in a container's command, and both read `$$` as a literal `$`. So a user's `$HOME` reaches the
// program as `$HOME`, like through muster launch.
std::string escape_dollars(std::string_view text);
std::vector<std::string> escape_dollars(const std::vector<std::string>& words);

}  // namespace muster::gen
