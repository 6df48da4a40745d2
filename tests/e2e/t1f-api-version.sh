#!/bin/bash
# t1f-api-version: a client and a server that speak different versions of
# the API (each side claims one with GQ_TEST_API_VERSION, gq-api(7)). Every
# answer and a ping say the server's versions; a request without version
# headers (curl) is version 1; a client newer or older than the server is
# refused in one line that says which side to upgrade (exit 5), before
# anything is done.
. "$(dirname "$0")/lib.sh"
server_start --gpus 2
ping() { curl -s --unix-socket "$1" "${@:2}" http://gq/v1/ping; }
hdr=$(curl -s -D - -o /dev/null --unix-socket "$SERVER_SOCK" http://gq/v1/ping | tr -d '\r')
check_eq "an answer says the server's API version" "$(printf '%s\n' "$hdr" | grep -x 'Gq-Api-Version: 2')" "Gq-Api-Version: 2"
check_eq "and the oldest it speaks" "$(printf '%s\n' "$hdr" | grep -x 'Gq-Api-Oldest: 1')" "Gq-Api-Oldest: 1"
check_eq "a ping says them" "$(ping "$SERVER_SOCK" | jq -c '[.api_version, .api_oldest]')" "[2,1]"
check_eq "the same versions work" "$("$GQ" submit --hold -- true)" "submitted job 1"

out=$(GQ_TEST_API_VERSION=3 "$GQ" submit --hold -- true 2>&1); rc=$?
check_eq "a client newer than the server: exit 5" "$rc" 5
check_eq "in one line: upgrade gq serve" "$out" \
	"gq: gq serve at 'unix:$SERVER_SOCK' (API versions 1 to 2) is older than this gq (API version 3): upgrade gq serve"
check_eq "and nothing was submitted" "$(curl -s --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?all=1' | jq '.jobs | length')" 1
body=$(curl -s -H 'Gq-Api-Version: 3' --unix-socket "$SERVER_SOCK" -X POST http://gq/v1/jobs/1/cancel)
check_eq "the server refuses such a request itself" "$(printf %s "$body" | jq -r .error.message)" \
	"gq serve (API versions 1 to 2) is older than the client (API version 3): upgrade gq serve"
check_eq "and does not act on it" "$("$GQ" show --json 1 | jq -r .state)" pending
server_stop

# A newer server that no longer speaks versions 1 and 2.
sock2="$T_DIR/sock2"
GQ_TEST_API_VERSION=3 "$GQ" serve --listen "unix:$sock2" --state-dir "$T_DIR/state2" --manual-clock \
	>>"$T_DIR/server.log" 2>&1 &
SERVER_PID=$!
T_PIDS="$T_PIDS $SERVER_PID"
for _ in $(seq 1 100); do
	ping "$sock2" -f -H 'Gq-Api-Version: 3' >/dev/null 2>&1 && break
	sleep 0.05
done
export GQ_SERVER="unix:$sock2"
out=$("$GQ" ls 2>&1); rc=$?
check_eq "a client older than the server: exit 5" "$rc" 5
check_eq "in one line: upgrade this gq" "$out" \
	"gq: this gq (API versions 1 to 2) is older than gq serve at 'unix:$sock2' (API version 3): upgrade this gq"
check_eq "curl without headers is version 1, refused too" "$(ping "$sock2" | jq -r .error.code)" unavailable
check_eq "a client of the same version works" "$(GQ_TEST_API_VERSION=3 "$GQ" submit --hold -- true)" "submitted job 1"
finish
