// What `muster sync` prints: the live progress line (stderr, on a terminal only), the per-node summary and the
// dry-run listing (stdout). Pure formatting of SyncReport / SyncProgress; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sync_head/sync_push.h"

namespace muster::sync_head {

std::string format_size(uint64_t bytes);  // "0 B", "812 B", "4.1 kB", "312.4 MB", "1.20 GB" (decimal, as rsync)

// One line without '\n': "sync  123.4 MB / 300.0 MB  41%  24.1 MB/s  ETA 7s  slowest node3 (-12.3 MB)".
std::string format_progress(const SyncProgress& progress, const std::vector<std::string>& names);

std::string format_summary(const SyncReport& report, const std::vector<std::string>& names,
                           const std::string& source, const std::string& destination);

// The lines about hard links and links that leave the tree (empty when there are none).
std::string format_link_notes(const SyncReport& report);

// Per node, what a real run would do (`+` send, `c` copy from content the node has, `-` delete, `l` link,
// `h` hard link, `m` metadata, `d` directory).
std::string format_dry_run(const SyncReport& report, const std::vector<std::string>& names,
                           const std::string& source, const std::string& destination);

}  // namespace muster::sync_head
