#!/bin/bash
# t46-window-note: a submit into a queue whose window would stop the job
# says so, when the job cannot checkpoint and the window requeues it
# (queue.NAME.windowAction = requeue): one sentence on stderr (stdout stays
# "submitted job N", so id=$(gq submit ...) keeps working) and a "window"
# object in --json. Nothing when the job can checkpoint, when the window
# lets it finish, or when it is expected to end, and must end, before the
# pause; the start it is predicted is the one used (a job submitted in
# the pause starts when it ends).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[queue "exp"]
	department = default
	window = 20:00-08:00
[queue "night"]
	department = default
	window = 20:00-08:00
	windowAction = finish'
T='([A-Z][a-z]{2} [0-9]{2} )?'
"$GQ" clock --set "2030-01-01 19:00" >/dev/null

out=$("$GQ" submit --queue exp --estimate 90m --time-limit 2h -- $LONG 2>"$T_DIR/err")
check_match "stdout: the job only" "$out" '^submitted job [0-9]+$'
check_match "stderr: the window would stop it, and when" "$(cat "$T_DIR/err")" \
	"^gq submit: note: Queue exp pauses at ${T}20:00 \(window 20:00-08:00 UTC\); starting now, this job is expected to end at ${T}20:30: it cannot checkpoint, so it would be stopped at ${T}20:00 and requeued, its work lost \(queue\.exp\.windowAction = requeue\)\.$"
check_eq "one line" "$(wc -l <"$T_DIR/err")" 1

stop=$(date -u -d "2030-01-01 20:00" +%s)
js=$("$GQ" submit --json --queue exp --estimate 90m --time-limit 2h -- $LONG 2>"$T_DIR/err")
check_eq "--json: the window object" "$(jq -c '.window | [.queue, .action, .window, .stop - '"$stop"', .end - .start, .expected]' <<<"$js")" \
	'["exp","requeue","20:00-08:00",0,5400,true]'
check_eq "--json: nothing on stderr" "$(cat "$T_DIR/err")" ""

"$GQ" submit --queue exp --estimate 30m --time-limit 3h -- $LONG 2>"$T_DIR/err" >/dev/null
check_match "expected to end before, but its time limit runs past: it may be stopped" "$(cat "$T_DIR/err")" \
	"starting now, this job may run until ${T}22:00 \(its time limit\): it cannot checkpoint, so if it still runs at ${T}20:00 it will be stopped and requeued"

for args in "--queue exp --checkpointable --estimate 90m --time-limit 2h" \
	"--queue night --estimate 90m --time-limit 2h" \
	"--queue exp --estimate 30m --time-limit 45m"; do
	# shellcheck disable=SC2086
	"$GQ" submit $args -- $LONG >/dev/null 2>"$T_DIR/err"
	check_eq "no note: $args" "$(cat "$T_DIR/err")" ""
done

clock +90m # 20:30: exp is paused, a job submitted now starts at 08:00
"$GQ" submit --queue exp --estimate 2h --time-limit 4h -- $LONG >/dev/null 2>"$T_DIR/err"
check_eq "in the pause, a job that ends by the next one: no note" "$(cat "$T_DIR/err")" ""
"$GQ" submit --queue exp --estimate 13h --time-limit 14h -- $LONG >/dev/null 2>"$T_DIR/err"
check_match "one that runs into the next pause: from its predicted start" "$(cat "$T_DIR/err")" \
	"starting at ${T}08:00, this job is expected to end at ${T}21:00: it cannot checkpoint, so it would be stopped at ${T}20:00 and requeued"
check "and every job of the test is cancelled" "$GQ" cancel --yes --name sleep
finish
