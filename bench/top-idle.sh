#!/bin/sh
# bench/top-idle.sh - CPU that a live `gq top` uses while nothing happens:
# a real gq serve (manual clock) with a small workload, the real gq top in a
# detached tmux pane, and its user+system CPU time read from /proc over the
# idle period. Goal: under 1% of one core.
#   TOP_IDLE_SECONDS=60 sh bench/top-idle.sh     (default 10)
#   TOP_IDLE_JOBS=2000 sh bench/top-idle.sh       (default 40 queued jobs)
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/.." && pwd)/gq}
secs=${TOP_IDLE_SECONDS:-10}
njobs=${TOP_IDLE_JOBS:-40}
dir=$(mktemp -d /tmp/gqb.XXXXXX)
sock="$dir/sock"
tmux_sock="$dir/tmux"
export HOME="$dir" XDG_CONFIG_HOME="$dir/.config" XDG_RUNTIME_DIR="$dir/run" TZ=UTC
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset GQ_BACKEND GQ_TOKEN_FILE
"$GQ" serve --listen "unix:$sock" --state-dir "$dir/state" --manual-clock >"$dir/serve.log" 2>&1 &
spid=$!
cleanup() {
	tmux -S "$tmux_sock" kill-server 2>/dev/null
	kill -TERM "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
export GQ_SERVER="unix:$sock"
for _ in $(seq 1 100); do
	"$GQ" clock +0 >/dev/null 2>&1 && break
	sleep 0.05
done
# A queue that is not empty, its jobs held so that no process runs (and
# none outlives the benchmark).
for i in $(seq 1 "$njobs"); do
	"$GQ" submit --hold --gpus 2 --tier P1 --name "bench-$i" -- sleep 3600 >/dev/null 2>&1
done
tmux -S "$tmux_sock" new-session -d -x 120 -y 40 "exec $GQ top"
sleep 2 # let it connect and draw its first frame
pid=$(tmux -S "$tmux_sock" list-panes -F '#{pane_pid}')
[ "$(cat /proc/"$pid"/comm)" = gq ] || { echo "top-idle: gq top did not start"; exit 1; }
# CPU time in nanoseconds, summed over the process's threads (schedstat
# is exact where /proc/PID/stat counts 10 ms ticks).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{n += $1} END {printf "%.0f\n", n}'; }
t0=$(cpu_ns "$pid")
s0=$(cpu_ns "$spid")
sleep "$secs"
t1=$(cpu_ns "$pid")
s1=$(cpu_ns "$spid")
awk -v t=$((t1 - t0)) -v s=$((s1 - s0)) -v secs="$secs" -v njobs="$njobs" 'BEGIN {
	printf "top-idle: %d jobs queued, over %ds idle gq top used %.1f ms of CPU (%.3f%% of a core); gq serve %.3f%%\n",
		njobs, secs, t / 1e6, 100 * t / 1e9 / secs, 100 * s / 1e9 / secs
}'
