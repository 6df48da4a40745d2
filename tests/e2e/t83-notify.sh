#!/bin/bash
# t83: --notify start,end,fail,requeue: gq serve POSTs one JSON shape to
# the submitter's notify.webhook and gives the same JSON to notify.command
# (with GQ_* variables), for exactly the transitions gq-submit(1) lists;
# a receiver that is down at first gets the notes once it is up (retries);
# a note not yet delivered survives a kill -9 of gq serve; bad lists and a
# --notify with nowhere to go are exit 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"

port=$(free_ports 1)
# The receiver, started later: appends each POSTed body to hook.txt.
receiver() {
	python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with open(sys.argv[1], "ab") as f:
            f.write(body + b"\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), H).serve_forever()' "$T_DIR/hook.txt" "$port" &
	RECV_PID=$!
	T_PIDS="$T_PIDS $RECV_PID"
}
# got FILE JQ-FILTER: a short poll (~40 s: retries back off) until FILE
# has a line the filter selects; prints the first such line.
got() {
	local l
	for _ in $(seq 1 400); do
		l=$(jq -c "select($2)" "$1" 2>/dev/null | head -1)
		[ -n "$l" ] && { echo "$l"; return 0; }
		sleep 0.1
	done
	return 1
}
cat >"$T_DIR/cmd.sh" <<SH
#!/bin/sh
cat >>"$T_DIR/cmd.txt"
echo >>"$T_DIR/cmd.txt"
echo "\$GQ_NOTIFY_EVENT \$GQ_JOB_ID \$GQ_JOB_NAME \$GQ_JOB_STATE \$GQ_EXIT_CODE \$GQ_RUNTIME \$GQ_QUEUE \$GQ_TIER \$(id -un)" >>"$T_DIR/env.txt"
SH
chmod +x "$T_DIR/cmd.sh"
mkdir -p "$XDG_CONFIG_HOME/gq"
printf '[notify]\n\twebhook = http://127.0.0.1:%s/hook\n\tcommand = %s\n' "$port" "$T_DIR/cmd.sh" \
	>"$XDG_CONFIG_HOME/gq/config"

server_start --gpus 8
"$GQ" clock --set "2030-01-01 10:00" >/dev/null
now=$("$GQ" clock --json | jq .now)
me=$(id -un)

# The receiver is down: the command gets the notes at once, the webhook
# once the receiver is up.
a=$(sub --notify start,end,fail --name ok -- true)
check "job a completes" wait_state "$a" completed
line=$(got "$T_DIR/cmd.txt" ".job == $a and .event == \"end\"")
check_eq "the command got a's end" "$?" 0
queue=$("$GQ" show --json "$a" | jq -r .queue)
check_eq "the end, field by field" \
	"$(echo "$line" | jq -c '[.event, .job, .name, .user, .state, .exit_code, .runtime, .queue, .tier, .time]')" \
	"[\"end\",$a,\"ok\",\"$me\",\"completed\",0,0,\"$queue\",\"P1\",$now]"
check_eq "and its sentence" "$(echo "$line" | jq -r .text)" "job $a (ok) completed: exit 0 after 0s"
check_eq "every field and no other" "$(echo "$line" | jq -c 'keys')" \
	'["event","exit_code","job","name","queue","runtime","state","text","tier","time","user"]'
check "the command got a's start too" got "$T_DIR/cmd.txt" ".job == $a and .event == \"start\" and .state == \"running\" and .exit_code == null"
check_eq "with GQ_* variables, run as the job's user" "$(grep "^end $a " "$T_DIR/env.txt")" \
	"end $a ok completed 0 0 $queue P1 $me"
check "no POST yet: the receiver is down" test ! -s "$T_DIR/hook.txt"
sleep 1
receiver
check "once it is up, the webhook gets a's start (retried)" got "$T_DIR/hook.txt" ".job == $a and .event == \"start\""
check "and a's end" got "$T_DIR/hook.txt" ".job == $a and .event == \"end\""
check_eq "the same JSON as the command's" "$(got "$T_DIR/hook.txt" ".job == $a and .event == \"end\"")" "$line"

# fail: a non-zero exit, a time limit; not a success.
b=$(sub --notify fail --name bad -- sh -c 'exit 3')
check "job b fails" wait_state "$b" failed
check_eq "b's fail: exit 3" "$(got "$T_DIR/hook.txt" ".job == $b" | jq -c '[.event, .state, .exit_code, .text]')" \
	"[\"fail\",\"failed\",3,\"job $b (bad) failed: exit 3 after 0s\"]"
c=$(sub --notify fail -- true)
check "job c completes" wait_state "$c" completed
d=$(sub --notify start,end,fail,requeue --time-limit 1m -- $LONG)
check "job d runs" wait_state "$d" running
check "d's start" got "$T_DIR/hook.txt" ".job == $d and .event == \"start\""
check_eq "c, a success, sent nothing with --notify fail (its note would be before d's)" \
	"$(jq -c "select(.job == $c)" "$T_DIR/hook.txt" | wc -l)" 0
"$GQ" clock +1m >/dev/null
check "at its time limit d times out" wait_state "$d" timeout
check_eq "d's timeout is a fail, with its runtime" \
	"$(got "$T_DIR/hook.txt" ".job == $d and .event == \"fail\"" | jq -c '[.event, .state, .runtime]')" \
	'["fail","timeout",60]'
check_eq "one note for its end, not a fail and an end" \
	"$(jq -c "select(.job == $d and .event != \"start\")" "$T_DIR/hook.txt" | wc -l)" 1
e=$(sub --notify requeue,end -- $LONG)
check "job e runs" wait_state "$e" running
"$GQ" requeue "$e" >/dev/null
check "a requeue notifies" got "$T_DIR/hook.txt" ".job == $e and .event == \"requeue\" and .state == \"pending\""
"$GQ" cancel "$e" >/dev/null
check "a cancel is an end, exit null" got "$T_DIR/hook.txt" ".job == $e and .event == \"end\" and .state == \"cancelled\" and .exit_code == null"

# Durable: the receiver is down again, gq serve is killed while it retries.
kill "$RECV_PID"
wait "$RECV_PID" 2>/dev/null
f=$(sub --notify end --name durable -- true)
check "job f completes" wait_state "$f" completed
# sqlite3 waits for gq serve's write (.timeout), else a busy journal
# reads as no row (CI saw that once).
journal() { sqlite3 -cmd '.timeout 5000' "$SERVER_STATE/gq.db" "$1"; }
# The note is journalled by the notifier after the job's end is (CI saw
# the count read 0 right after "completes"): wait for it, a few seconds.
note_kept() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(journal "select count(*) from notes where job = $f")" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}
check "its note is in the journal" note_kept
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
receiver
server_start --gpus 8
check "after kill -9 and a restart the webhook gets f's end" got "$T_DIR/hook.txt" ".job == $f and .event == \"end\" and .name == \"durable\""
for _ in $(seq 1 100); do
	[ "$(journal 'select count(*) from notes')" = 0 ] && break
	sleep 0.1
done
check_eq "delivered notes leave the journal" "$(journal 'select count(*) from notes')" 0

check_match "gq show has the list" "$("$GQ" show "$d")" "^notify +start,end,fail,requeue$"
g=$(sub --hold -- true)
check "gq update --notify" "$GQ" update --notify end "$g"
check_eq "changes a pending job's list" "$("$GQ" show --json "$g" | jq -r .notify)" end
check_fail 2 "an unknown event: exit 2" "$GQ" submit --notify start,finish -- true
check_match "said in one line" "$("$GQ" submit --notify start,finish -- true 2>&1)" \
	"^gq submit: --notify: notify 'start,finish': unknown event 'finish'; give a list of start, end, fail, requeue \(or all, none\); see 'gq submit -h'$"
mv "$XDG_CONFIG_HOME/gq/config" "$T_DIR/config.off"
check_fail 2 "--notify with no webhook or command anywhere: exit 2" "$GQ" submit --notify end -- true
check_match "which says where to set one" "$("$GQ" submit --notify end -- true 2>&1)" \
	"notify: nowhere to send notifications; set notify.webhook or notify.command in your config file"
printf '[notify]\n\twebhook = ftp://x/\n' >"$XDG_CONFIG_HOME/gq/config"
check_fail 2 "a webhook that is not http(s): exit 2" "$GQ" submit --notify end -- true
finish
