// DeepSpeed/MPI hostfiles: one host per line, as DeepSpeed's runner and OpenMPI's mpirun read them.
//
//   # comment                  full-line and trailing comments; blank lines; CRLF; spaces and tabs
//   node1 slots=8              DeepSpeed / OpenMPI
//   node2 slots=8 max_slots=16 OpenMPI; either order
//   alice@node3:4              user and `host:N` slot count
//   node4                      slots unspecified (Host::slots == -1)
//
// Pure: the caller reads the file and passes its text and name; errors say `file:line:column: ...`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/host.h"
#include "util/result.h"

namespace muster::cluster {

// Largest slot or max_slots count a hostfile may give one host.
inline constexpr int kMaxSlotsPerHost = 1'000'000;

// Hosts in file order. Refuses duplicates, slots < 1, max_slots < slots, unknown keys, stray tokens,
// malformed host names, and a file without any host.
Result<std::vector<Host>> parse_hostfile(std::string_view text, std::string_view filename);

// DeepSpeed form (`[user@]host slots=N [max_slots=M]`, one per line) that parse_hostfile reads back equal.
std::string format_hostfile(const std::vector<Host>& hosts);

}  // namespace muster::cluster
