// The name of a file-system type from statfs's f_type magic number: what doctor shows for a path and what
// the checks compare ("/data is nfs on node1 but ext4 on node2"). Pure.
#pragma once

#include <cstdint>
#include <string>

namespace muster::doctor {

// "ext4", "xfs", "btrfs", "nfs", "tmpfs", "overlay", "fuse", "cifs", "lustre", "gpfs", ...; an unknown magic
// as "0x" and lowercase hex ("0x1234abcd"). ext2/3/4 share one magic and are all "ext4".
std::string filesystem_type_name(uint64_t magic);

// Whether the type is a network or cluster file system (shared between nodes when mounted alike).
bool is_network_filesystem(const std::string& type_name);

}  // namespace muster::doctor
