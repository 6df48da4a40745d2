#!/bin/bash
# t37: a P0 pending 2 h reminds its owner (an event, and a JSON POST to
# downgrade.webhook); the owner confirms with gq confirm, which starts a
# new cycle; 2 h later the next reminder comes, and with no confirmation
# within 30 min the job becomes P1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"

# The webhook receiver: appends each body it is POSTed to hook.txt.
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
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[2] + ".tmp", "w").write(str(s.server_port))
__import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()' "$T_DIR/hook.txt" "$T_DIR/hook.port" &
T_PIDS="$T_PIDS $!"
for _ in $(seq 1 100); do [ -s "$T_DIR/hook.port" ] && break; sleep 0.05; done
port=$(cat "$T_DIR/hook.port")
# hook N: waits (a short poll) until the receiver has N bodies, prints the last.
hook() {
	for _ in $(seq 1 100); do
		[ "$(wc -l <"$T_DIR/hook.txt" 2>/dev/null || echo 0)" -ge "$1" ] && break
		sleep 0.05
	done
	sed -n "${1}p" "$T_DIR/hook.txt"
}

policy_server "[headroom]
	share = 0
[tier \"P0\"]
	waitLimit = 30d
[downgrade]
	webhook = http://127.0.0.1:$port/hook"

a=$(sub --gpus 8 --tier P0 -- $LONG)
check "a P0 holds the machine" wait_state "$a" running
b=$(sub --gpus 1 --tier P0 --name urgent -- $LONG)
t0=$("$GQ" clock --json | jq .now)
clock +1h59m
check_eq "no reminder before 2 h" "$(events_of "$b" | grep -c reminder)" 0
clock +1m
check_eq "at 2 h: a reminder event" "$(events_of "$b" | grep reminder)" \
	"reminder pending->pending P0 job $b has waited 2h00m; confirm with 'gq confirm $b' within 30m or it becomes P1"
check_eq "reminded_at is now" "$(field "$b" .reminded_at)" "$((t0 + 7200))"
check_eq "the webhook got it as JSON" "$(hook 1 | jq -c '[.event, .job, .name, .tier, .pending, .confirm_before - .time]')" \
	"[\"reminder\",$b,\"urgent\",\"P0\",7200,1800]"
check "the owner confirms" "$GQ" confirm "$b"
clock +30m
check_eq "confirmed: no downgrade 30 min after the reminder" "$(field "$b" .tier)" P0
clock +1h29m
check_eq "no second reminder before 2 h after the confirmation" "$(events_of "$b" | grep -c reminder)" 1
clock +1m
check_eq "2 h after the confirmation: the second reminder" "$(events_of "$b" | grep -c reminder)" 2
clock +29m
check_eq "29 min later it is still P0" "$(field "$b" .tier)" P0
clock +1m
check_eq "30 min after the second reminder, unconfirmed: P1" "$(field "$b" .tier)" P1
check_eq "as an event" "$(events_of "$b" | grep downgrade)" \
	"downgrade pending->pending P0 -> P1: not confirmed within 30m of the reminder"
check_eq "the webhook got the second reminder and the downgrade" \
	"$(hook 2 | jq -r .event) $(hook 3 | jq -r '"\(.event) \(.tier)"')" "reminder downgrade P1"
check_fail 1 "a P1 job cannot be confirmed" "$GQ" confirm "$b"
finish
