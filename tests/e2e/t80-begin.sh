#!/bin/bash
# t80: --begin defers a job's start (sbatch's --begin): its own wait
# reason with its time, not "cooldown"; the prediction starts it then; it
# starts when the server's clock gets there; the forms of Slurm; a time in
# the past or a bad one is one line and exit 2; it survives kill -9.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
server_start --gpus 8
"$GQ" clock --set "2030-01-01 10:00" >/dev/null
now=$("$GQ" clock --json | jq .now)

a=$(sub --begin now+2h -- $LONG)
check_eq "now+2h: begin_time is the server's now + 7200" "$(field "$a" .begin_time)" $((now + 7200))
check_eq "it is pending" "$(state "$a")" pending
check_match "its reason is begin, with its time" "$("$GQ" why "$a")" \
	"^Pending: begin\. Deferred by its owner; may not start before 12:00 \(--begin\)\. .* Likely start 12:00 at its begin time\. Looked at again at 12:00\.$"
check_eq "why --json: the reason and until" \
	"$("$GQ" why --json "$a" | jq -c '[.reason, .explanation.items[0].until]')" "[\"begin\",$((now + 7200))]"
check_eq "eta predicts its begin time, gated by it" \
	"$("$GQ" eta --json | jq -c ".[] | select(.id == $a) | [.predicted_start, .reason]")" "[$((now + 7200)),\"begin\"]"
check_match "ls shows the reason" "$("$GQ" ls | grep "^ *$a ")" "12:00 +begin$"
check_match "show has a begin row" "$("$GQ" show "$a")" "^begin +not before 12:00$"

# Slurm's forms, on the server's clock (10:00 UTC).
b=$(sub --begin 14:00 -- true)
check_eq "14:00: today" "$(field "$b" .begin_time)" $((now + 4 * 3600))
c=$(sub --begin 09:30 -- true)
check_eq "09:30 has passed: tomorrow, as Slurm" "$(field "$c" .begin_time)" $((now + 23 * 3600 + 1800))
d=$(sub --begin "2030-01-02T08:00" -- true)
check_eq "an ISO date and time" "$(field "$d" .begin_time)" $((now + 22 * 3600))
e=$(sub --begin now+30minutes -- true)
check_eq "now+30minutes" "$(field "$e" .begin_time)" $((now + 1800))
f=$(sub --begin now -- $LONG)
check_eq "now: no deferral" "$(field "$f" .begin_time)" 0
check "and it starts" wait_state "$f" running
printf '#!/bin/sh\n#GQ --begin teatime\ntrue\n' >"$T_DIR/s.sh"
g=$(sub "$T_DIR/s.sh")
check_eq "a #GQ --begin line" "$(field "$g" .begin_time)" $((now + 6 * 3600))

check_fail 2 "a date in the past: exit 2" "$GQ" submit --begin 2029-12-31 -- true
check_match "with one line saying so" "$("$GQ" submit --begin 2029-12-31 -- true 2>&1)" \
	"^gq submit: --begin '2029-12-31' is in the past \(Dec 31 00:00, now is 10:00\); give a later time"
check_eq "one line only" "$("$GQ" submit --begin 2029-12-31 -- true 2>&1 | wc -l)" 1
check_fail 2 "a bad form: exit 2" "$GQ" submit --begin tomorrowish -- true
check_match "named in its line" "$("$GQ" submit --begin 25:00 -- true 2>&1)" \
	"^gq submit: --begin: '25:00' is not a begin time; use now\+2h, 14:00"
check_fail 2 "a bad form on a #GQ line: exit 2" sh -c "printf '#GQ --begin x\ntrue\n' >'$T_DIR/b.sh'; '$GQ' submit '$T_DIR/b.sh'"
check_eq "the API refuses a past begin_time" \
	"$(api POST /v1/jobs '{"argv":["true"],"begin_time":1000}' | jq -r .error.message)" \
	"begin time 1000 is in the past (now is $now); give a later one or none"

kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
server_start --gpus 8
check_eq "begin_time survives kill -9 of the server" "$(field "$a" .begin_time)" $((now + 7200))
"$GQ" clock --set "2030-01-01 11:59" >/dev/null
check_eq "a minute before, still pending" "$(state "$a")" pending
"$GQ" clock +1m >/dev/null
check "at its begin time it starts" wait_state "$a" running
check_eq "the event says started, no cooldown anywhere" \
	"$(api GET '/v1/events?after=0&limit=1000' | jq -r ".events[] | select(.job == $a) | .reason" | tr '\n' ' ')" \
	"submitted start started "
finish
