// A machine that runs workers, as the user listed it: its name, the ssh user to log in as, and how many
// worker slots (usually GPUs) it offers. A plain value: parsing and validation happen where hosts come from
// (hostfile.h, hostlist.h, slurm_env.h); a Host never reaches out to the machine it names.
#pragma once

#include <string>
#include <string_view>

namespace muster::cluster {

struct Host {
  std::string name{};               // host name or address, without the user
  std::string user{};               // ssh login; empty = the ssh default
  int slots = -1;                   // worker slots; -1 = the source did not say (the caller picks a default)
  int max_slots = -1;               // MPI's oversubscription limit; -1 = not given
  std::string destination() const;  // "user@name", or "name" without a user

  bool operator==(const Host&) const = default;
};

// Splits `[user@]name` at its first '@'; checks nothing (see host_name.h for that).
Host host_from_destination(std::string_view destination);

}  // namespace muster::cluster
