#!/usr/bin/env bash
# A GPU fault during a job (issue 26): every agent watches its node's kernel log. Three testbed nodes, `--nnodes 2`:
# the job runs on node1-2, node3 is the spare. node2's /dev/kmsg is a FIFO (bind-mounted in node2's namespace; the
# test holds its write end) standing for the kernel's log. While the job runs, the test writes the driver's line
# for XID 79 (a GPU fallen off the bus) into it: the live log must name node2 and the GPU at once (within 3 s);
# when the ranks then fail, the failure is node2's — excluded, the job goes on with the spare and ends 0. Without
# the watch the failure would be nobody's and the job would stop (restarts are for node faults by default).
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

launch_setup 3
SHARED=$(mktemp -d "$REPO/.muster-test-gpu.XXXXXX")  # the checkout is on every node: a shared directory
add_cleanup "rm -rf '$SHARED'"
mkfifo "$SHARED/kmsg"
exec 3<>"$SHARED/kmsg"
add_cleanup "exec 3>&-"
"$TESTBED" exec node2 mount --bind "$SHARED/kmsg" /dev/kmsg

# Each rank: says it started, waits for `go`, then fails on the first attempt; a later attempt ends 0 at once.
WORKER='h=$(hostname); touch "$D/started-$h"; [ -e "$D/failed" ] && exit 0
for i in $(seq 600); do [ -e "$D/go" ] && break; sleep 0.1; done; touch "$D/failed"; exit 1'
OUT=$SCRATCH/out
start_muster "$OUT" -w 'node[1-3]' --nnodes 2 --nproc-per-node 1 --max-restarts 2 --grace 2 -- \
  env D="$SHARED" sh -c "$WORKER"
started() { [[ -e $SHARED/started-node2 && -e $SHARED/started-node1 ]]; }
wait_until 60 started || fail "the job did not start on node1 and node2: $(tail -n 20 "$OUT")"

step "XID 79 into node2's kernel log"
sent=$(now_us)
echo "3,99001,987654321,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python3, GPU has fallen off the bus." >&3
named() { grep -q "node2: GPU at 0000:3b:00 XID 79 (GPU has fallen off the bus" "$OUT"; }
wait_until 3 named || fail "the live log does not name node2's GPU within 3 s: $(tail -n 20 "$OUT")"
step "named in the live log after $(fmt_ms "$(ms_between "$sent" "$(now_us)")") s"

touch "$SHARED/go"
wait_exit "$MUSTER_PID" 120
((EXIT_RC == 0)) || fail "the job exited $EXIT_RC: $(tail -n 30 "$OUT")"
grep -q "node2: GPU at 0000:3b:00 XID 79 .*: excluded; attempt 2 of 3 on node\[1,3\] (node3 from the spares)" "$OUT" ||
  fail "no decision line excluding node2 for its GPU: $(grep -v '^\[node' "$OUT" | tail -n 20)"
echo "PASS: $TEST_NAME"
