#!/bin/bash
# t14: two users on one root server. Each job runs as its submitter (uid,
# gid, supplementary groups); nobody acts on another's job or does admin
# things; root (admin) may. On TCP, bearer tokens from a hashed tokens file
# say who is asking. A server not run by root serves only its own user.
# Needs root: it creates two users and a group, and removes them at exit.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
if [ "$(id -u)" != 0 ]; then echo "ok 1 - t14-serve-users: skipped, needs root"; exit 0; fi
U1=gqt14a$$ U2=gqt14b$$ G=gqt14g$$
users_cleanup() {
	t_cleanup
	userdel "$U1" 2>/dev/null
	userdel "$U2" 2>/dev/null
	groupdel "$G" 2>/dev/null
}
trap users_cleanup EXIT
groupadd "$G"
useradd -M -N -g users -G "$G" -s /bin/sh "$U1"
useradd -M -N -g users -s /bin/sh "$U2"
uid1=$(id -u "$U1") uid2=$(id -u "$U2") gid=$(getent group users | cut -d: -f3) g=$(getent group "$G" | cut -d: -f3)
chmod 755 "$T_DIR"
server_start --gpus 4

as() { # USER api|api_code METHOD PATH [BODY]: the request made by USER
	u=$1 f=$2
	shift 2
	w=""
	[ "$f" = api_code ] && w=' %{http_code}'
	setpriv --reuid "$u" --regid users --init-groups curl -s -w "$w" --unix-socket "$SERVER_SOCK" \
		-X "$1" ${3:+--data-binary "$3"} "http://gq$2" | if [ -n "$w" ]; then
		sed 's/^\(.*\) \([0-9]*\)$/\2 \1/'
	else cat; fi
}
body='{"argv":["sh","-c","id -u; id -g; id -G; exec sleep 1000"],"cwd":"/tmp","name":"mine"}'
check_eq "user 1 submits" "$(as "$U1" api POST /v1/jobs "$body" | jq -c '[.id, .job.user, .job.uid, .job.gid]')" "[1,\"$U1\",$uid1,$gid]"
check "it runs" wait_state 1 running
for _ in $(seq 1 100); do [ "$(api GET /v1/jobs/1/logs | wc -l)" = 3 ] && break; sleep 0.05; done
check_eq "as user 1, with its group and supplementary group" "$(api GET /v1/jobs/1/logs | tr '\n' ' ' | sed 's/ $//')" \
	"$uid1 $gid $(echo "$gid $g" | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')"
check_eq "its log belongs to it" "$(stat -c %U "$SERVER_STATE/jobs/1/stdout")" "$U1"
check_eq "ping says who: user 2, role user" "$(as "$U2" api GET /v1/ping | jq -c '[.user, .role]')" "[\"$U2\",\"user\"]"
check_eq "user 2 sees the job" "$(as "$U2" api GET /v1/jobs/1 | jq -r .user)" "$U1"
check_eq "user 2 cannot cancel it" "$(as "$U2" api_code POST /v1/jobs/1/cancel | { read -r st b; echo "$st $(echo "$b" | jq -r .error.message)"; })" \
	"403 job '1' belongs to '$U1'; you may act on your own jobs only"
check_eq "nor hold, nor read its logs or command" \
	"$(as "$U2" api_code POST /v1/jobs/1/hold | cut -c1-3) $(as "$U2" api_code GET /v1/jobs/1/logs | cut -c1-3) $(as "$U2" api_code GET /v1/jobs/1/command | cut -c1-3)" \
	"403 403 403"
check_eq "a user cannot override" "$(as "$U1" api POST /v1/jobs/1/override '{"tier":"P0","reason":"x"}' | jq -r .error.message)" \
	"overrides are admin actions; ask an admin"
check_eq "nor move the clock" "$(as "$U1" api POST /v1/clock '{"advance":5}' | jq -r .error.message)" \
	"moving the clock is an admin action"
check_eq "user 2's own job runs as user 2" "$(as "$U2" api POST /v1/jobs '{"argv":["id","-u"],"cwd":"/tmp"}' | jq .job.uid)" "$uid2"
check "job 2 completes" wait_state 2 completed
check_eq "as user 2" "$(api GET /v1/jobs/2/logs)" "$uid2"
check_eq "user 1 cancels its own job" "$(as "$U1" api POST /v1/jobs/1/cancel | jq -r .state)" stopping
check "cancelled" wait_state 1 cancelled
as "$U1" api POST /v1/jobs '{"argv":["true"],"held":true}' >/dev/null
check_eq "root (admin) cancels anyone's job" "$(api POST /v1/jobs/3/cancel | jq -r .state)" cancelled
check_eq "and the event names the admin" "$(api GET '/v1/events?after=0' | jq -r '.events[] | select(.job == 3 and .to == "cancelled") | .actor')" "admin:root"

# TCP with bearer tokens.
port=$(free_ports 1)
printf '# test tokens\n%s %s user\n%s boss admin %s\n' \
	"$(printf %s alice-secret | sha256sum | cut -d' ' -f1)" "$U1" \
	"$(printf %s boss-secret | sha256sum | cut -d' ' -f1)" "$uid2" >"$T_DIR/tokens"
server_stop
server_start --gpus 4 --listen "127.0.0.1:$port" --tokens "$T_DIR/tokens"
tcp() { # TOKEN METHOD PATH [BODY]
	t=$1
	shift
	curl -s -w ' %{http_code}' -H "Authorization: Bearer $t" -X "$1" ${3:+--data-binary "$3"} "http://127.0.0.1:$port$2" |
		sed 's/^\(.*\) \([0-9]*\)$/\2 \1/'
}
check_eq "no token: 401" "$(curl -s -w ' %{http_code}' "http://127.0.0.1:$port/v1/ping" | sed 's/^\(.*\) \([0-9]*\)$/\2 \1/' | { read -r st b; echo "$st $(echo "$b" | jq -r .error.message)"; })" \
	"401 no bearer token: send 'Authorization: Bearer TOKEN' (GQ_TOKEN_FILE)"
check_eq "a wrong token: 401" "$(tcp nope GET /v1/ping | { read -r st b; echo "$st $(echo "$b" | jq -r .error.message)"; })" \
	"401 unknown bearer token; ask an admin for one"
check_eq "alice's token is user 1" "$(tcp alice-secret GET /v1/ping | { read -r st b; echo "$st $(echo "$b" | jq -c '[.user, .uid, .role]')"; })" \
	"200 [\"$U1\",$uid1,\"user\"]"
check_eq "alice submits over TCP: runs as user 1" "$(tcp alice-secret POST /v1/jobs '{"argv":["id","-u"],"cwd":"/tmp"}' | { read -r st b; echo "$st $(echo "$b" | jq .job.uid)"; })" \
	"201 $uid1"
check "job 4 completes" wait_state 4 completed
check_eq "as user 1" "$(api GET /v1/jobs/4/logs)" "$uid1"
tcp alice-secret POST /v1/jobs '{"argv":["sleep","1000"],"cwd":"/tmp"}' >/dev/null
check "job 5 runs" wait_state 5 running
check_eq "boss (admin token) may cancel it" "$(tcp boss-secret POST /v1/jobs/5/cancel | { read -r st b; echo "$st $(echo "$b" | jq -r .state)"; })" "200 stopping"
check "cancelled" wait_state 5 cancelled
check_eq "the tokens file holds no token" "$(grep -c secret "$T_DIR/tokens")" 0
check_eq "TCP without a tokens file is refused" "$("$GQ" serve --listen 127.0.0.1:1 --state-dir "$T_DIR/x" 2>&1; echo "rc=$?")" \
	"gq serve: --listen '127.0.0.1:1' is TCP: give --tokens FILE so that callers can be identified; see 'gq serve -h'
rc=2"

# A server run by a user serves that user only.
mkdir -p "$T_DIR/u1"
chown "$U1" "$T_DIR/u1"
setpriv --reuid "$U1" --regid users --init-groups env HOME="$T_DIR/u1" \
	"$GQ" serve --listen "unix:$T_DIR/u1/sock" --state-dir "$T_DIR/u1/state" --gpus 1 >>"$T_DIR/u1.log" 2>&1 &
T_PIDS="$T_PIDS $!"
for _ in $(seq 1 100); do [ -S "$T_DIR/u1/sock" ] && break; sleep 0.05; done
check_eq "its user is its admin" "$(setpriv --reuid "$U1" --regid users --init-groups curl -s --unix-socket "$T_DIR/u1/sock" http://gq/v1/ping | jq -c '[.user, .role]')" "[\"$U1\",\"admin\"]"
check_eq "anyone else gets 403, even root" "$(curl -s -w ' %{http_code}' --unix-socket "$T_DIR/u1/sock" http://gq/v1/ping | sed 's/^\(.*\) \([0-9]*\)$/\2 \1/' | { read -r st b; echo "$st $(echo "$b" | jq -r .error.message)"; })" \
	"403 this gq serve belongs to '$U1' and serves only that user; use your own server or ask an admin for a shared one"
finish
