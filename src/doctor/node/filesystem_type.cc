#include "doctor/node/filesystem_type.h"

#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace muster::doctor {
namespace {

// From linux/magic.h and the file systems' own sources (lustre, gpfs, beegfs, weka are out of tree).
constexpr std::array<std::pair<uint64_t, std::string_view>, 28> known_types{{
    {0xEF53, "ext4"},          {0x58465342, "xfs"},      {0x9123683E, "btrfs"},   {0x6969, "nfs"},
    {0x01021994, "tmpfs"},     {0x794C7630, "overlay"},  {0x65735546, "fuse"},    {0xFF534D42, "cifs"},
    {0xFE534D42, "smb2"},      {0x0BD00BD0, "lustre"},   {0x47504653, "gpfs"},    {0x2FC12FC1, "zfs"},
    {0x19830326, "beegfs"},    {0x00C36400, "ceph"},     {0x858458F6, "ramfs"},   {0x73717368, "squashfs"},
    {0x4D44, "vfat"},          {0x2011BAB0, "exfat"},    {0x5346544E, "ntfs"},    {0x01021997, "9p"},
    {0x0187, "autofs"},        {0x9FA0, "proc"},         {0x62656572, "sysfs"},   {0x63677270, "cgroup2"},
    {0x27E0EB, "cgroup"},      {0x1CD1, "devpts"},       {0x5A3C69F0, "aufs"},    {0xF2F52010, "f2fs"},
}};

}  // namespace

std::string filesystem_type_name(uint64_t magic) {
  for (const auto& [value, name] : known_types) {
    if (value == magic) return std::string(name);
  }
  return fmt::format("{:#x}", magic);
}

bool is_network_filesystem(const std::string& type_name) {
  for (std::string_view shared : {"nfs", "cifs", "smb2", "lustre", "gpfs", "beegfs", "ceph", "9p"}) {
    if (type_name == shared) return true;
  }
  return false;
}

}  // namespace muster::doctor
