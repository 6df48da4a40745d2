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
BENCH_NAME=growth
. "$(dirname "$0")/lib.inc"
N=${GROWTH_JOBS:-20000}
report() { # LABEL
	local rss db wal spool
	rss=$(bench_rss)
	db=$(stat -c %s "$T/state/gq.db")
	wal=$(stat -c %s "$T/state/gq.db-wal" 2>/dev/null || echo 0)
	spool=$(du -sk "$T/state/jobs" 2>/dev/null | cut -f1)
	printf '%-34s RSS %7d kB  gq.db %6d kB  -wal %6d kB  spool %6d kB  ls %5d ms  history(27h) %5d ms\n' \
		"$1" "$rss" $((db / 1024)) $((wal / 1024)) "$spool" "$(bench_ms "$GQ" ls)" \
		"$(bench_ms "$GQ" history --since now-27h)"
}

bench_serve --manual-clock --keep-finished 10d
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
bench_serve --manual-clock --keep-finished 10d
echo "# restart: $((($(date +%s%N) - t0) / 1000000)) ms to answer"
report "after a restart"
"$GQ" clock +8d >/dev/null
sleep 3
report "8 days on (pruned, swept)"
