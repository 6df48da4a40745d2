#!/bin/bash
# t84: --signal SIG@SECONDS (sbatch's --signal): gq serve sends the signal
# to the job's process group that many seconds before its time limit, once;
# gq show says so; it is journalled, so a server killed with -9 before the
# time still sends it after its restart, and one restarted after it does
# not send it again; bad forms and a time beyond the limit are exit 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
server_start --gpus 8
"$GQ" clock --set "2030-01-01 10:00" >/dev/null

# A workload that saves (writes a file) on USR1 and then keeps running,
# counting the signals it got.
cat >"$T_DIR/save.sh" <<'SH'
#!/bin/sh
n=0
trap 'n=$((n + 1)); echo "saved $n" >"$1"' USR1 USR2
while :; do sleep 0.1; done
SH
chmod +x "$T_DIR/save.sh"

a=$(sub --time-limit 10m --signal USR1@120 -- "$T_DIR/save.sh" "$T_DIR/a.saved")
check_eq "the job records signal 10, 120 s before" "$("$GQ" show --json "$a" | jq -c '[.sig, .sig_before, .sig_sent]')" "[10,120,false]"
check "it starts" wait_state "$a" running
check_match "gq show has a signal row" "$("$GQ" show "$a")" "^signal +SIGUSR1 2m before the time limit$"
"$GQ" clock +7m59s >/dev/null
sleep 1
check "a second before its time, no signal yet" test ! -e "$T_DIR/a.saved"

kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
server_start --gpus 8
"$GQ" clock +1s >/dev/null
wait_file() { for _ in $(seq 1 100); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }
check "after a kill -9 and a restart, at limit - 120 s the job gets USR1" wait_file "$T_DIR/a.saved"
check_eq "once" "$(cat "$T_DIR/a.saved")" "saved 1"
check_match "gq show says it was sent" "$("$GQ" show "$a")" "^signal +SIGUSR1 2m before the time limit, sent$"
check_eq "an event says so" \
	"$(api GET '/v1/events?after=0&limit=1000' | jq -r ".events[] | select(.job == $a and .kind == \"signal\") | .reason")" \
	"SIGUSR1, 120 s before its time limit"
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
server_start --gpus 8
"$GQ" clock +1m >/dev/null
sleep 1
check_eq "a kill -9 and a restart after it do not send it again" "$(cat "$T_DIR/a.saved")" "saved 1"
"$GQ" clock +1m >/dev/null
check "at its limit it is stopped as any" wait_state "$a" timeout

b=$(sub --time-limit 1h --signal 12 -- "$T_DIR/save.sh" "$T_DIR/b.saved")
check_eq "a number, and 60 s by default" "$("$GQ" show --json "$b" | jq -c '[.sig, .sig_before]')" "[12,60]"
check "it starts" wait_state "$b" running
"$GQ" clock +59m >/dev/null
check "SIGUSR2 a minute before the end" wait_file "$T_DIR/b.saved"
"$GQ" cancel "$b" >/dev/null

check_fail 2 "an unknown signal: exit 2" "$GQ" submit --time-limit 1h --signal FOO@60 -- true
check_match "in one line naming it" "$("$GQ" submit --time-limit 1h --signal FOO@60 -- true 2>&1)" \
	"^gq submit: --signal: signal 'FOO@60': unknown signal 'FOO'; give a name such as USR1 or TERM, or a number 1\.\.31; see 'gq submit -h'$"
check_fail 2 "a time that is not one: exit 2" "$GQ" submit --time-limit 1h --signal USR1@soon -- true
check_fail 2 "a time at or beyond the limit: exit 2" "$GQ" submit --time-limit 2m --signal USR1@120 -- true
check_match "said so" "$("$GQ" submit --time-limit 2m --signal USR1@120 -- true 2>&1)" \
	"^gq submit: signal: 120 s before the end is not within the time limit \(120 s\); give fewer seconds after '@'"
check_fail 2 "no time limit at all: exit 2 from the server" "$GQ" submit --signal USR1 -- true
check_match "which says to give one" "$("$GQ" submit --signal USR1 -- true 2>&1)" \
	"signal: the job has no time limit for the signal to come before; give --time-limit"
c=$(sub --time-limit 10m --signal USR1@120 --hold -- true)
check_fail 2 "gq update --time-limit below the signal's time: exit 2" "$GQ" update --time-limit 1m "$c"
finish
