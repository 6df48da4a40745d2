#!/bin/bash
# bench/growth.sh - what a gq serve keeps of the jobs it ran: GROWTH_JOBS
# (20000) trivial CPU-only jobs (arrays of 1,000, 32 at once) through a
# real gq serve --keep-finished 10d with a manual clock, in rounds of
# GROWTH_ROUND (2000) each followed by 26 h of the clock (the round's jobs
# leave memory); then a restart, then 8 days more (the spools swept).
# Prints the server's RSS, the journal's files, the spool's size and `gq
# ls` / `gq history` times after each round. Not a pass/fail test: figures go to bench/README.md
# ("Nothing only grows").
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/.." && pwd)/gq}
N=${GROWTH_JOBS:-20000}
T=$(mktemp -d /tmp/gqgrowth.XXXXXX)
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_STATE_HOME="$T/home/.local/state" \
	XDG_RUNTIME_DIR="$T/run" TZ=UTC LC_ALL=C NO_COLOR=1 GQ_SERVER="unix:$T/sock"
unset GQ_TOKEN_FILE GQ_BACKEND
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
cleanup() {
	[ -n "${SPID:-}" ] && kill -TERM "$SPID" 2>/dev/null && sleep 0.5
	rm -rf "$T"
}
trap cleanup EXIT
start() {
	"$GQ" serve --listen "unix:$T/sock" --state-dir "$T/state" --manual-clock --gpus 8 \
		--keep-finished 10d >>"$T/server.log" 2>&1 &
	SPID=$!
	for _ in $(seq 1 400); do "$GQ" ls >/dev/null 2>&1 && return 0; sleep 0.05; done
	echo "growth: gq serve did not start"; tail -5 "$T/server.log"; exit 1
}
ms() { # CMD...: wall milliseconds of the best of 3
	local best=""
	for _ in 1 2 3; do
		local t0 t1
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		local d=$(((t1 - t0) / 1000000))
		[ -z "$best" ] || [ "$d" -lt "$best" ] && best=$d
	done
	echo "$best"
}
report() { # LABEL
	local rss db wal spool
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$SPID/status")
	db=$(stat -c %s "$T/state/gq.db")
	wal=$(stat -c %s "$T/state/gq.db-wal" 2>/dev/null || echo 0)
	spool=$(du -sk "$T/state/jobs" 2>/dev/null | cut -f1)
	printf '%-34s RSS %7d kB  gq.db %6d kB  -wal %6d kB  spool %6d kB  ls %5d ms  history(27h) %5d ms\n' \
		"$1" "$rss" $((db / 1024)) $((wal / 1024)) "$spool" "$(ms "$GQ" ls)" \
		"$(ms "$GQ" history --since now-27h)"
}

start
report "empty"
# Rounds of ROUND jobs, each followed by 26 h of the clock: the jobs of a
# round have left memory by the next (the journal keeps them).
ROUND=${GROWTH_ROUND:-2000}
done_jobs=0
t0=$(date +%s)
while [ $done_jobs -lt "$N" ]; do
	for _ in $(seq 1 $((ROUND / 1000))); do
		"$GQ" submit --gpus 0 --array 0-999%32 --name g -- true >/dev/null || exit 1
	done
	while [ "$("$GQ" ls --json | jq length)" != 0 ]; do sleep 1; done
	done_jobs=$((done_jobs + ROUND))
	"$GQ" clock +26h >/dev/null
	sleep 1
	report "$done_jobs jobs run, 26 h on"
done
echo "# $N jobs ran in $(($(date +%s) - t0)) s"
kill -TERM "$SPID"
wait "$SPID"
t0=$(date +%s%N)
start
echo "# restart: $((($(date +%s%N) - t0) / 1000000)) ms to answer"
report "after a restart"
"$GQ" clock +8d >/dev/null
sleep 3
report "8 days on (pruned, swept)"
