#!/bin/bash
# bench/journal.sh - gq serve on a journal of JOURNAL_JOBS (200000) finished
# jobs, made with sqlite3 from one real job (ids and ends spread over the
# last 30 days, 0.1% of them failed), so that the issue's 200,000-job
# figures need not run 200,000 jobs (an hour here). Prints the restart time
# (to the first answer), RSS, `gq ls`, `gq history` of one day and of the
# last hour, `gq show` of an old job. GQ (default ./gq) is the binary:
# run it once with an older one for the "before" figures.
set -u
BENCH_NAME=journal
. "$(dirname "$0")/lib.inc"
N=${JOURNAL_JOBS:-200000}
command -v sqlite3 >/dev/null || { echo "journal: needs sqlite3 (make deps)"; exit 0; }

bench_serve
"$GQ" submit --gpus 0 --name tmpl -- true >/dev/null
for _ in $(seq 1 200); do [ "$("$GQ" ls --json | jq length)" = 0 ] && break; sleep 0.05; done
kill -TERM "$SPID"
wait "$SPID"
now=$(date +%s)
# Rows 2..N+1 from job 1: ids, ends spread over 30 days (the last hour's
# jobs newest), starts a minute before.
sqlite3 "$T/state/gq.db" <<EOF
WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i <= $N)
INSERT INTO jobs(id, uid, idem, job, command, intent)
SELECT i, j.uid, NULL,
       json_set(j.job, '\$.id', i, '\$.name', 'synth' || (i % 50),
                '\$.state', CASE WHEN i % 1000 = 0 THEN 'failed' ELSE 'completed' END,
                '\$.end_time', $now - 30 * 86400 + (i * 30 * 86400) / ($N + 2),
                '\$.start_time', $now - 30 * 86400 + (i * 30 * 86400) / ($N + 2) - 60,
                '\$.submit_time', $now - 30 * 86400 + (i * 30 * 86400) / ($N + 2) - 120,
                '\$.queued_time', $now - 30 * 86400 + (i * 30 * 86400) / ($N + 2) - 120),
       j.command, ''
FROM n, (SELECT uid, job, command FROM jobs WHERE id = 1) AS j;
EOF
echo "# journal: $(sqlite3 "$T/state/gq.db" 'select count(*) from jobs') jobs, gq.db $(($(stat -c %s "$T/state/gq.db") / 1048576)) MB"
t0=$(date +%s%N)
bench_serve
echo "restart to the first answer: $((($(date +%s%N) - t0) / 1000000)) ms"
# The first start on an older journal builds gq's indexes: a second start.
kill -TERM "$SPID"
wait "$SPID"
t0=$(date +%s%N)
bench_serve
echo "restart again: $((($(date +%s%N) - t0) / 1000000)) ms"
echo "RSS: $(bench_rss) kB"
echo "gq ls: $(bench_ms "$GQ" ls) ms"
echo "gq history of the last day ($("$GQ" history --since now-1d --json | jq length) jobs): $(bench_ms "$GQ" history --since now-1d) ms"
echo "gq history of the last hour ($("$GQ" history --since now-1h --json | jq length) jobs): $(bench_ms "$GQ" history --since now-1h) ms"
echo "gq show of a job of 20 days ago: $(bench_ms "$GQ" show $((N / 3))) ms"
echo "RSS after: $(bench_rss) kB"
