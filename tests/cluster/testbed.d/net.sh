# shellcheck shell=bash
# testbed.d/net.sh — the network: one bridge on the head, a netns and a veth per node, cable pulls and rate
# caps (tc tbf on both ends of a node's link). Sourced by ../testbed.

testbed_netns() { ip netns list 2>/dev/null | awk -v re="^$PREFIX-node[0-9]+\$" '$1 ~ re {print $1}'; }

testbed_links() {
  ip -o link show 2>/dev/null |
    awk -F': ' -v re="^${PREFIX}[0-9]+(@.*)?\$" '$2 ~ re {sub(/@.*/, "", $2); print $2}'
}

# A cable pull: node K's veth leaves the bridge, so its frames are dropped silently (no RST, no ICMP).
pull_cable() { ip link set "$(veth_name "$1")" nomaster; }
plug_cable() { ip link set "$(veth_name "$1")" master "$BRIDGE" up; }
node_partitioned() { [[ ! -e /sys/class/net/$(veth_name "$1")/master ]]; }

create_bridge() {
  [[ -z $(ip -o addr show to "$(bridge_ip)" 2>/dev/null) ]] ||
    die "$(bridge_ip) is already in use on this machine; pick another MUSTER_TESTBED_SUBNET"
  ip link add "$BRIDGE" type bridge forward_delay 0 stp_state 0 \
    nf_call_iptables 0 nf_call_ip6tables 0 nf_call_arptables 0 2>/dev/null ||
    ip link add "$BRIDGE" type bridge forward_delay 0 stp_state 0
  # A fixed MAC: otherwise the bridge takes its lowest port's, and pulling that node's cable would change
  # the head's MAC under every other node's ARP cache.
  ip link set "$BRIDGE" address "$(printf '02:4d:%02x:%02x:%02x:01' $(((SUBNET_BASE >> 16) & 255)) \
    $(((SUBNET_BASE >> 8) & 255)) $((SUBNET_BASE & 255)))"
  ip addr add "$(bridge_ip)/$SUBNET_LEN" dev "$BRIDGE"
  ip link set "$BRIDGE" up
}

# Namespaces and veths for nodes 1..N: one ip batch on the host, one per node inside its netns.
create_links() {
  local n=$1 k
  for ((k = 1; k <= n; k++)); do
    echo "netns add $PREFIX-node$k"
    echo "link add $PREFIX$k type veth peer name eth0 netns $PREFIX-node$k"
  done | ip -b -
  for ((k = 1; k <= n; k++)); do
    # A detached (partitioned) veth must not answer ARP or accept packets for the host.
    echo 8 >"/proc/sys/net/ipv4/conf/$PREFIX$k/arp_ignore"
    echo 1 >"/proc/sys/net/ipv4/conf/$PREFIX$k/rp_filter"
    echo "link set $PREFIX$k master $BRIDGE up"
  done | ip -b -
  for ((k = 1; k <= n; k++)); do
    printf 'addr add %s/%s dev eth0\nlink set eth0 up\nlink set lo up\n' "${NODE_IPS[k]}" "$SUBNET_LEN" |
      ip -n "$PREFIX-node$k" -b -
  done
}

delete_links() {
  local ns link i
  for ns in $(testbed_netns); do echo "netns del $ns"; done | ip -force -b - 2>/dev/null || true
  for link in $(testbed_links); do echo "link del $link"; done | ip -force -b - 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do  # netns teardown is asynchronous in the kernel
    [[ -z $(testbed_links) ]] && return 0
    sleep 0.02
  done
}

# RATE → tbf burst in bytes (10 ms of traffic, at least 32 KiB); dies on a malformed rate.
rate_burst() {
  local r=${1,,} bits
  [[ $r =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] || usage_error "bad rate '$1' (want e.g. 100mbit, 1gbit, none)"
  case ${BASH_REMATCH[2]} in
    bit) bits=${BASH_REMATCH[1]} ;;
    kbit) bits=$((BASH_REMATCH[1] * 1000)) ;;
    mbit) bits=$((BASH_REMATCH[1] * 1000000)) ;;
    gbit) bits=$((BASH_REMATCH[1] * 1000000000)) ;;
  esac
  ((bits > 0)) || usage_error "rate must be positive"
  local burst=$((bits / 8 / 100))
  echo $((burst > 32768 ? burst : 32768))
}

# Caps node K's link: tbf on the host-side veth (traffic to the node) and on the node's eth0 (from it).
set_rate() {
  local k=$1 rate=$2 ns veth burst
  ns=$(netns_name "$k")
  veth=$(veth_name "$k")
  if [[ $rate == none ]]; then
    tc qdisc del dev "$veth" root 2>/dev/null || true
    tc -n "$ns" qdisc del dev eth0 root 2>/dev/null || true
    rm -f "$(node_dir "$k")/rate"
    return 0
  fi
  burst=$(rate_burst "$rate")
  tc qdisc replace dev "$veth" root tbf rate "$rate" burst "$burst" latency 50ms
  tc -n "$ns" qdisc replace dev eth0 root tbf rate "$rate" burst "$burst" latency 50ms
  echo "$rate" >"$(node_dir "$k")/rate"
}
