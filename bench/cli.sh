#!/bin/bash
# bench/cli.sh - `gq ls` end to end (connect, snapshot, decode, order,
# predict, render) with 10,000 jobs queued, and `gq why` on the last of
# them: prints p50/p99 of the wall clock and the p50 of the client's CPU
# (user + sys, less sensitive to a loaded machine) over RUNS runs each.
# Goal: under 100 ms each.
# A figure, not a test: it never fails on time. Usage: bench/cli.sh [JOBS] [RUNS]
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/.." && pwd)/gq}
JOBS=${1:-10000}
RUNS=${2:-30}
dir=$(mktemp -d /tmp/gqb.XXXXXX)
sock=$dir/sock
export HOME=$dir XDG_CONFIG_HOME=$dir/cfg XDG_STATE_HOME=$dir/state XDG_RUNTIME_DIR=$dir TZ=UTC NO_COLOR=1
unset GQ_TOKEN_FILE GQ_BACKEND
"$GQ" serve --listen "unix:$sock" --state-dir "$dir/st" --manual-clock >"$dir/serve.log" 2>&1 &
pid=$!
cleanup() {
	"$GQ" cancel 1 >/dev/null 2>&1
	for _ in $(seq 1 100); do
		[ "$("$GQ" ls --state cancelled --format '{id}' 2>/dev/null)" = 1 ] && break
		sleep 0.05
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
export GQ_SERVER=unix:$sock
for _ in $(seq 1 100); do "$GQ" clock >/dev/null 2>&1 && break; sleep 0.05; done

# One P0 job holding every GPU, then JOBS pending ones of every tier, sent
# through one curl process (keep-alive) so that queueing takes seconds.
"$GQ" submit --tier P0 --gpus 8 --estimate 2h --time-limit 4h -- sleep 3600 >/dev/null || exit 1
cfg=$dir/curl.cfg
awk -v n="$JOBS" -v cwd="$dir" -v sock="$sock" 'BEGIN {
	for (i = 1; i <= n; i++) {
		t = (i % 3 == 0) ? "P0" : (i % 3 == 1) ? "P1" : "P2"
		g = 1 + i % 7
		printf "url = \"http://gq/v1/jobs\"\n"
		printf "unix-socket = \"%s\"\n", sock
		printf "data = \"{\\\"argv\\\":[\\\"true\\\"],\\\"cwd\\\":\\\"%s\\\",\\\"env\\\":[],\\\"name\\\":\\\"b%d\\\",\\\"tier\\\":\\\"%s\\\",\\\"req\\\":{\\\"gpus\\\":%d},\\\"estimate\\\":%d}\"\n", cwd, i % 50, t, g, 600 + (i % 7) * 300
		printf "header = \"Content-Type: application/json\"\n"
		printf "output = \"/dev/null\"\n"
		if (i < n) printf "next\n"
	}
}' >"$cfg"
t0=$(date +%s%N)
curl -sS -K "$cfg" || { echo "queueing failed"; exit 1; }
t1=$(date +%s%N)
queued=$("$GQ" ls --format '{id}' | wc -l)
echo "queued $JOBS jobs in $(( (t1 - t0) / 1000000 )) ms; gq ls lists $queued"
last=$("$GQ" ls --state pending --format '{id}' | tail -1)

measure() { # label, command...: wall clock and the client's CPU (user + sys)
	label=$1; shift
	: >"$dir/t"
	for _ in $(seq 1 "$RUNS"); do
		a=$(date +%s%N)
		/usr/bin/time -f '%U %S' -o "$dir/cpu" "$@" >/dev/null
		b=$(date +%s%N)
		echo "$(( (b - a) / 1000 )) $(awk '{ printf "%d", ($1 + $2) * 1000000 }' "$dir/cpu")" >>"$dir/t"
	done
	pct() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f %.1f", v[int((NR + 1) / 2)] / 1000, v[int(NR * 0.99 + 0.999)] / 1000 }'; }
	read -r w50 w99 <<<"$(cut -d' ' -f1 "$dir/t" | pct)"
	read -r c50 _ <<<"$(cut -d' ' -f2 "$dir/t" | pct)"
	printf "%-28s p50 %6s ms   p99 %6s ms   client CPU p50 %6s ms   (%d runs)\n" "$label" "$w50" "$w99" "$c50" "$RUNS"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "gq ls ($JOBS jobs)" "$GQ" ls
measure "gq ls --json ($JOBS jobs)" "$GQ" ls --json
measure "gq why $last (the last)" "$GQ" why "$last"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
