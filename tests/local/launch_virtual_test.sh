#!/usr/bin/env bash
# shellcheck disable=SC2016  # worker scripts are single-quoted on purpose
# launch on virtual nodes: `--transport local` with named hosts starts one agent per host on this machine, each
# calling itself by its host's name, and the launch tree works over them as over ssh (the relays start local
# agents).
#   1. 256 virtual nodes x 2 ranks through the default tree (fanout 32: the head starts 32 agents, they start the
#      rest): every rank ran exactly once, with its own RANK, NODE_RANK and LOCAL_RANK, on the node the plan gave
#      it; the manifest shows 32 head connections, depth 2, and every node's own name; nothing is left.
#   2. A rank killed on a node two levels down (fanout 3, 30 nodes: depth 3) stops the whole gang: exit 137,
#      that rank named, nothing left.
#   3. Without a tree (--fanout 0) the head holds a connection per node.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly NODES=256 PER_NODE=2

manifest_tree() { manifest_get "muster-runs/$1" '" ".join(str(m["launch_tree"][k]) for k in ("head_connections", "depth"))'; }

# --- 1. 256 virtual nodes ----------------------------------------------------------------------------------------
job many
start=$EPOCHREALTIME
"$MUSTER" launch -q --job-id "$JOB" -w "vnode[1-$NODES]" --transport local --nproc-per-node "$PER_NODE" -- \
  sh -c 'echo "rank=$RANK node=$NODE_RANK local=$LOCAL_RANK world=$WORLD_SIZE"' >out 2>err ||
  fail "$NODES virtual nodes x $PER_NODE ranks exited $?: $(tail -n 5 out err)"
echo "  $NODES virtual nodes x $PER_NODE ranks: $(elapsed_since "$start") s" >&2
world=$((NODES * PER_NODE))
bad=0
for ((rank = 0; rank < world; rank++)); do
  want="rank=$rank node=$((rank / PER_NODE)) local=$((rank % PER_NODE)) world=$world"
  [[ $(cat "muster-runs/$JOB/rank-$rank.log") == "$want" ]] || bad=$((bad + 1))
done
assert_eq 0 "$bad" "rank logs that do not hold exactly their rank's one line"
# Exactly once: the terminal shows one line per rank, none twice.
assert_eq "$world" "$(grep -c '\] rank=' out)" "lines the ranks printed"
assert_eq "$world" "$(grep -o 'rank=.*' out | sort -u | wc -l)" "distinct lines the ranks printed"
assert_eq "32 2" "$(manifest_tree "$JOB")" "head connections and depth"
assert_eq "True" "$(manifest_get "muster-runs/$JOB" \
  '[n["hostname"] for n in m["nodes"]] == ["vnode%d" % k for k in range(1, '"$NODES"' + 1)]')" \
  "every agent's own name in the manifest"
assert_eq "" "$(job_processes "$JOB")" "processes of the job left"

# --- 2. a rank killed two levels down --------------------------------------------------------------------------
job kill
# vnode9 (rank 8) hangs under vnode8, which hangs under vnode1, which the head starts.
start_bg kill.out launch --job-id "$JOB" -w 'vnode[1-30]' --transport local --fanout 3 --nproc-per-node 1 \
  -- sh -c 'if [ "$RANK" = 8 ]; then echo "$$" >victim; fi; exec sleep 60'
has_victim() { [[ -s victim ]]; }
wait_until 30 has_victim || fail "rank 8 did not start: $(cat kill.out)"
all_up() { (($(job_processes "$JOB" | wc -l) == 30)); }
wait_until 30 all_up || fail "not all 30 ranks started: $(cat kill.out)"
kill -KILL "$(cat victim)"
wait_bg "$BG_PID" 20
assert_eq 137 "$BG_RC" "exit status after rank 8 was killed"
assert_contains "$(cat kill.out)" "rank 8 on vnode9 failed" "the root cause"
assert_eq "3 3" "$(manifest_tree "$JOB")" "head connections and depth of 30 nodes at fanout 3"
wait_until 3 no_job_processes "$JOB" || fail "processes left: $(describe_job_processes "$JOB")"

# --- 3. the star -------------------------------------------------------------------------------------------------
job star
"$MUSTER" launch -q --job-id "$JOB" -w 'vnode[1-40]' --transport local --fanout 0 -- true >out 2>err ||
  fail "40 virtual nodes without a tree exited $?: $(tail -n 5 out err)"
assert_eq "40 1" "$(manifest_tree "$JOB")" "head connections and depth of the star"
