#!/usr/bin/env bash
# shellcheck disable=SC2016,SC1003  # worker scripts and literal arguments are single-quoted on purpose
# launch: signals to the head and to the agent. Ctrl-C reaches the workers and the head exits 130; a second
# Ctrl-C kills at once; a SIGKILLed head or agent leaves no process of the job behind (including what the
# workers started in the background).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# count_is N: true when job $JOB has exactly N live processes.
count_is() { [[ $(job_processes "$JOB" | wc -l) == "$1" ]]; }

# start_job TAG PROCS ARG...: muster launch in the background, two workers; waits until the job has PROCS
# processes (every worker and its child started, so their traps are set).
start_job() {
  local tag=$1 procs=$2
  shift 2
  job "$tag"
  start_bg out launch --job-id "$JOB" --nproc-per-node 2 "$@"
  wait_until 5 count_is "$procs" ||
    fail "$tag: expected $procs processes of the job, found: $(describe_job_processes "$JOB"); output: $(cat out)"
}

assert_job_gone() {
  wait_until "$1" no_job_processes "$JOB" ||
    fail "$2: processes of job $JOB still running after $1 s:
$(describe_job_processes "$JOB")
muster output:
$(cat out)"
}

# --- SIGINT: workers see INT and exit, head exits 130 ---------------------------------------------------------
start_job int 4 -- sh -c 'trap "echo got INT; exit 7" INT; sleep 30 & wait'
kill -INT "$BG_PID"
start=$EPOCHREALTIME
wait_bg "$BG_PID" 5
assert_eq 130 "$BG_RC" "head's exit code after SIGINT"
assert_job_gone 2 "SIGINT to the head (the workers' background sleep too)"
assert_faster 3 "$start" "SIGINT: head exit and teardown"
assert_contains "$(cat out)" "[localhost:0] got INT" "rank 0 saw SIGINT"
assert_contains "$(cat out)" "[localhost:1] got INT" "rank 1 saw SIGINT"

# --- workers ignore INT and TERM: the first SIGINT waits for the grace, a second one kills at once -----------
start_job int2 4 --grace 60 -- sh -c 'trap "" INT TERM; sleep 30'
kill -INT "$BG_PID"
sleep 0.5
head_exited "$BG_PID" && fail "the head exited on the first SIGINT although the workers ignore it and --grace is 60"
count_is 4 || fail "workers ignoring INT and TERM are gone after one SIGINT with --grace 60: $(describe_job_processes "$JOB")"
kill -INT "$BG_PID"
start=$EPOCHREALTIME
wait_bg "$BG_PID" 2
assert_faster 2 "$start" "head exit after the second SIGINT"
assert_eq 130 "$BG_RC" "head's exit code after two SIGINTs"
assert_job_gone 1 "second SIGINT to the head"

# --- SIGKILL to the head: the agent tears the job down --------------------------------------------------------
start_job headkill 4 -- sh -c 'sleep 30 & wait'
kill -KILL "$BG_PID"
assert_job_gone 2 "SIGKILL to the head"

# --- SIGKILL to the agent: workers die with it, the head reports the node lost ---------------------------------
start_job agentkill 4 -- sh -c 'sleep 30 & wait'
agent=$(pgrep -P "$BG_PID" -f 'muster agent' || true)
[[ $agent =~ ^[0-9]+$ ]] || fail "expected one 'muster agent' child of the head (pid $BG_PID), found: '$agent'"
kill -KILL "$agent"
start=$EPOCHREALTIME
wait_bg "$BG_PID" 5
assert_faster 2 "$start" "head exit after its agent was SIGKILLed"
((BG_RC != 0)) || fail "the head exited 0 after its agent was SIGKILLed"
assert_contains "$(cat out)" "localhost lost" "head's report after its agent was SIGKILLed"
assert_job_gone 2 "SIGKILL to the agent (the workers' background sleep too)"
