#include "cli/data_path_flags.h"

namespace muster::cli {

void add_data_path_options(CLI::App& app, sync_head::DataPathFlags& flags) {
  app.add_option("--data-path", flags.mode,
                 "how file data travels: auto (straight between the nodes over TCP when there is more than 16 MB "
                 "to send, authenticated and encrypted with a key sent over ssh; ssh where a node cannot reach the "
                 "next over TCP, saying why), direct (TCP whatever the size; an error where it cannot go), ssh")
      ->check(CLI::IsMember({"auto", "direct", "ssh"}))
      ->capture_default_str()
      ->group("Data path");
  app.add_flag("--trusted-network", flags.trusted_network,
               "send file data between the nodes in clear on the direct path (still authenticated per connection "
               "and verified by hash), as NCCL and Slurm's sbcast do: for a private cluster network only")
      ->group("Data path");
  app.add_option("--streams", flags.streams,
                 "TCP streams per hop of the direct path (more when one stream cannot fill the link: long round "
                 "trips, or links bonded by flow)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str()
      ->group("Data path");
}

}  // namespace muster::cli
