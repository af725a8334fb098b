# shellcheck shell=bash
# testbed.d/containers.sh — `testbed up N --containers`: every node can run podman containers, with podman
# state of its own, as separate servers would have. Sourced by ../testbed.
#
# What a containers node gets, on top of an ordinary node (all of it under the node dir, removed by `down`):
#   node dir/containers/storage  bind-mounted on /var/lib/containers   images, containers, overlay layers
#                                (or, with MUSTER_TESTBED_CONTAINERS_TMPFS=SIZE at `up`, a tmpfs of that size:
#                                loads twice as fast, no disk writes to flush; costs RAM, ~1 GiB per node
#                                for the torch test image)
#   node dir/containers/vartmp   bind-mounted on /var/tmp              podman's temp files (image copies)
#   node dir/containers/cni      bind-mounted on /var/lib/cni          CNI's address leases (bridge networks)
#   node dir/containers/etc      bind-mounted on /etc/containers       a generated containers.conf, policy.json,
#                                                                      registries.conf (nothing of the host's)
#   node dir/containers/docker   bind-mounted on /etc/docker           when the host has one (docker.io): a
#                                dockerd started in the node (container_lib.sh start_dockerd) writes its
#                                key.json there, not into the host's /etc
#   its /run (/run/containers, /run/libpod, /run/docker*) and /dev/shm (podman's lock memory) are node-private
#   anyway.
#   A cgroup of its own, muster-testbed-<prefix>-nodeK, in every cgroup hierarchy (below the cgroup `up` runs
#   in), entered before the node's namespaces are made, plus a cgroup namespace rooted there: the node's
#   /sys/fs/cgroup (mounted by its PID-1 like the host's) shows only that subtree, so runc can make each
#   container's cgroup, containers stay inside the caller's cgroups (memory accounting included), and
#   `down` finds every cgroup a node made (also after a crash) and removes it.
# The containers.conf holds what this VM needs and real GPU servers do not (so it is the testbed's, never a
# muster default): runc instead of crun (crun refuses the kernel's hybrid cgroup layout), cgroupfs (no systemd
# in a node), events to a file (no journald). sshd → shell → podman finds it at its default path, no environment
# variable needed. It does NOT tune ulimits (users have no such containers.conf): podman sets nofile and nproc
# to 1,048,576 in every container unless told otherwise, and no process here may raise a hard rlimit, so a
# plain `podman run` fails here as on such a server ("error setting rlimit type 7"); muster gives the node's own
# (src/container/node_ulimits.h), and tests that run podman by hand do too (container_lib.sh PODMAN_LIMITS).

readonly CONTAINER_CGROUP_NAME_RE="^muster-testbed-$PREFIX-node[0-9]+\$"

container_cgroup_name() { echo "muster-testbed-$PREFIX-node$1"; }

# "TARGET FSTYPE OPTIONS FSROOT" of the host's cgroup hierarchies (v1 controllers, named ones, v2).
cgroup_hierarchies() {
  findmnt -rn -R -o TARGET,FSTYPE,OPTIONS,FSROOT /sys/fs/cgroup 2>/dev/null | awk '$2 ~ /^cgroup2?$/' || true
}

# Path of this process's cgroup in the hierarchy mounted with FSTYPE and OPTIONS (from /proc/self/cgroup).
own_cgroup_path() {
  local fstype=$1 opts=$2 id ctrls path opt
  while IFS=: read -r id ctrls path; do
    if [[ $fstype == cgroup2 ]]; then
      [[ $id == 0 && -z $ctrls ]] && { echo "$path"; return 0; }
      continue
    fi
    [[ -n $ctrls ]] || continue
    for opt in ${opts//,/ }; do
      [[ ,$ctrls, == *",$opt,"* ]] && { echo "$path"; return 0; }
    done
  done </proc/self/cgroup
  return 1
}

# Makes node K's cgroup in every hierarchy and records their directories in the node dir (containers/cgroups).
make_node_cgroups() {
  local k=$1 dir target fstype opts fsroot path cg name
  dir=$(node_dir "$k")
  name=$(container_cgroup_name "$k")
  : >"$dir/containers/cgroups"
  while read -r target fstype opts fsroot; do
    path=$(own_cgroup_path "$fstype" "$opts") || continue
    [[ $fsroot == / ]] || path=${path#"$fsroot"}
    cg=$target${path%/}/$name
    [[ -d $cg ]] || mkdir "$cg"
    if [[ -e $cg/cpuset.cpus && -z $(<"$cg/cpuset.cpus") ]]; then  # cgroup v1 cpuset starts empty
      cat "${cg%/*}/cpuset.cpus" >"$cg/cpuset.cpus"
      cat "${cg%/*}/cpuset.mems" >"$cg/cpuset.mems"
    fi
    echo "$cg" >>"$dir/containers/cgroups"
  done < <(cgroup_hierarchies)
}

# Moves the calling (sub)shell into node K's cgroups: what it starts next (the node) is born there. No forks
# (no command substitution): start_node's launcher runs this, and a child of it would pass for the node's
# PID-1 in record_init_pid.
enter_node_cgroups() {
  local cg
  while read -r cg; do echo "$BASHPID" >"$cg/cgroup.procs"; done <"$STATE/nodes/node$1/containers/cgroups"
}

# The nodes' own cgroups (one per node and hierarchy), recorded or not (a crashed run lost its state dir).
# (One find over every hierarchy under /sys/fs/cgroup: `down` and `leftovers` run this more than once.)
testbed_cgroup_roots() {
  local cg
  {
    cat "$STATE"/nodes/node*/containers/cgroups 2>/dev/null || true
    find /sys/fs/cgroup -maxdepth 7 -type d -name "muster-testbed-$PREFIX-node*" 2>/dev/null || true
  } | sort -u | while read -r cg; do
    if [[ ${cg##*/} =~ $CONTAINER_CGROUP_NAME_RE && -d $cg ]]; then echo "$cg"; fi
  done
}

# Every cgroup directory of this testbed's nodes, the ones podman made inside them too, deepest first.
testbed_cgroups() {
  local cg
  for cg in $(testbed_cgroup_roots); do find "$cg" -depth -type d 2>/dev/null || true; done
}

# Processes in any cgroup of this testbed's nodes: containers with a network namespace of their own are
# found only this way.
testbed_cgroup_pids() {
  local cg
  for cg in $(testbed_cgroups); do cat "$cg/cgroup.procs" 2>/dev/null || true; done
}

# Removes the nodes' cgroups (their processes are dead): bounded retries, as a killed process leaves its
# cgroup only once it is reaped.
remove_node_cgroups() {
  local cgs=() cg i
  for ((i = 0; i < 100; i++)); do
    mapfile -t cgs < <(testbed_cgroups)
    ((${#cgs[@]})) || return 0
    for cg in "${cgs[@]}"; do rmdir "$cg" 2>/dev/null || true; done
    mapfile -t cgs < <(testbed_cgroups)
    ((${#cgs[@]})) || return 0
    sleep 0.05
  done
  note "warning: cgroups could not be removed: ${cgs[*]}"
}

write_node_containers_conf() {
  cat <<EOF
# containers.conf of testbed node$1 (generated by $SELF; removed by 'testbed down').
# Quirks of this VM, not of real servers: keep them out of muster's defaults.
[engine]
# crun refuses the kernel's hybrid cgroup layout ("cgroups in hybrid mode not supported")
runtime = "runc"
# no systemd, no journald in a node
cgroup_manager = "cgroupfs"
events_logger = "file"

[network]
# CNI configs (for networks other than --network host) in the node's own storage, not the host's /etc/cni
network_config_dir = "/var/lib/containers/cni/net.d"
EOF
}

# The node's private /etc/containers: generated, not copied from the host, so tests see the same everywhere.
write_node_containers_etc() {
  local k=$1 etc=$2
  write_node_containers_conf "$k" >"$etc/containers.conf"
  # Accept any image (what Debian's podman ships in /etc/containers/policy.json); podman load needs one.
  echo '{"default": [{"type": "insecureAcceptAnything"}]}' >"$etc/policy.json"
  # No registry to complete short names with: an unqualified name never sends a pull anywhere.
  printf '# testbed node%s: no search registries\nunqualified-search-registries = []\n' "$k" \
    >"$etc/registries.conf"
}

# Node K's private container state and its cgroups (node dir prepared already).
prepare_node_containers() {
  local k=$1 dir
  dir=$(node_dir "$k")
  mkdir -p "$dir/containers"/{storage,vartmp,cni,etc,docker}
  chmod 1777 "$dir/containers/vartmp"
  write_node_containers_etc "$k" "$dir/containers/etc"
  echo "${MUSTER_TESTBED_CONTAINERS_TMPFS:-}" | sed '/^$/d' >"$dir/containers/tmpfs-size"
  cgroup_hierarchies >"$dir/containers/cgroup-mounts"
  make_node_cgroups "$k"
}

# Runs in node PID-1 (its own mount and cgroup namespaces), before the other private mounts: the cgroup
# hierarchies (each showing the node's subtree), then the private podman directories.
node_container_mounts() {
  local dir=$1 target fstype opts fsroot o
  [[ -d $dir/containers ]] || return 0
  mount -t tmpfs -o mode=755,nosuid,nodev,noexec tmpfs /sys/fs/cgroup
  while read -r target fstype opts fsroot; do
    mkdir -p "$target"
    # Only the options that select the hierarchy (controllers, name=...): the rest are the defaults.
    o=$(tr , '\n' <<<"$opts" | { grep -vxE 'rw|ro|relatime|noatime|nosuid|nodev|noexec|seclabel' || true; } |
      paste -sd, -)
    mount -t "$fstype" -o "nosuid,nodev,noexec${o:+,$o}" "$fstype" "$target"
  done <"$dir/containers/cgroup-mounts"
  if [[ -s $dir/containers/tmpfs-size ]]; then
    mount -t tmpfs -o "size=$(<"$dir/containers/tmpfs-size"),mode=0700" tmpfs /var/lib/containers
  else
    mount --bind "$dir/containers/storage" /var/lib/containers
  fi
  mount --bind "$dir/containers/vartmp" /var/tmp
  mount --bind "$dir/containers/cni" /var/lib/cni
  mount --bind "$dir/containers/etc" /etc/containers
  if [[ -d /etc/docker && -d $dir/containers/docker ]]; then mount --bind "$dir/containers/docker" /etc/docker; fi
}

# On the host, before the first containers node: podman's mount points must exist to be mounted over.
check_container_host() {
  local t
  for t in podman runc conmon; do command -v "$t" >/dev/null || die "--containers: missing $t (scripts/install-deps)"; done
  [[ -d /etc/containers ]] || die "--containers: no /etc/containers (is podman installed?)"
  [[ -n $(cgroup_hierarchies) ]] || die "--containers: no cgroup hierarchy under /sys/fs/cgroup"
  [[ ${MUSTER_TESTBED_CONTAINERS_TMPFS:-1g} =~ ^[1-9][0-9]*[kmg]?$ ]] ||
    die "MUSTER_TESTBED_CONTAINERS_TMPFS '$MUSTER_TESTBED_CONTAINERS_TMPFS' is not a size like 3g"
  # podman's and CNI's own directories, made as they would make them
  mkdir -p /var/lib/containers /var/lib/cni
}
