#!/bin/bash
# t29-tcp: a gq serve on TCP with bearer tokens: the client reads its token
# from the file GQ_TOKEN_FILE (or gq.tokenFile) names — never from a flag —
# refuses a token file others can read, and a wrong token is "not allowed".
. "$(dirname "$0")/lib.sh"
port=$(free_ports 1)
tok="$T_DIR/tokens"
alice=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
bob=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s alice user 4242\n%s bob user 4343\n' \
	"$(printf %s "$alice" | sha256sum | cut -d' ' -f1)" "$(printf %s "$bob" | sha256sum | cut -d' ' -f1)" >"$tok"
server_start --gpus 4 --listen "127.0.0.1:$port" --tokens "$tok"
export GQ_SERVER="http://127.0.0.1:$port"
printf '%s\n' "$alice" >"$T_DIR/alice.token"
printf '%s\n' "$bob" >"$T_DIR/bob.token"
chmod 600 "$T_DIR/alice.token" "$T_DIR/bob.token"

check_eq "alice submits over TCP" "$(GQ_TOKEN_FILE="$T_DIR/alice.token" "$GQ" submit --hold -- true)" "submitted job 1"
check_eq "the job is alice's" "$(GQ_TOKEN_FILE="$T_DIR/alice.token" "$GQ" show --json 1 | jq -r .user)" alice
out=$(GQ_TOKEN_FILE="$T_DIR/bob.token" "$GQ" cancel 1 2>&1); rc=$?
check_eq "bob cannot cancel alice's job: exit 4" "$rc" 4
check_match "and is told so" "$out" '^gq: '
mkdir -p "$XDG_CONFIG_HOME/gq"
printf '[gq]\n\tserver = http://127.0.0.1:%s\n\ttokenFile = %s\n' "$port" "$T_DIR/alice.token" >"$XDG_CONFIG_HOME/gq/config"
check_eq "server and token file from the config file" "$(env -u GQ_SERVER "$GQ" ls --format '{id} {user}')" "1 alice"
rm "$XDG_CONFIG_HOME/gq/config"

out=$("$GQ" ls 2>&1); rc=$?
check_eq "no token: exit 4" "$rc" 4
printf 'not-a-token\n' >"$T_DIR/bad.token"; chmod 600 "$T_DIR/bad.token"
out=$(GQ_TOKEN_FILE="$T_DIR/bad.token" "$GQ" ls 2>&1); rc=$?
check_eq "a wrong token: exit 4" "$rc" 4
chmod 644 "$T_DIR/alice.token"
out=$(GQ_TOKEN_FILE="$T_DIR/alice.token" "$GQ" ls 2>&1); rc=$?
check_eq "a token file others can read is refused: exit 4" "$rc" 4
check_eq "with the fix" "$out" "gq: token file '$T_DIR/alice.token' is readable by others; run 'chmod 600 $T_DIR/alice.token'"
out=$(GQ_TOKEN_FILE="$T_DIR/none.token" "$GQ" ls 2>&1); rc=$?
check_eq "a missing token file: exit 1" "$rc" 1
check_match "names it" "$out" "^gq: cannot read token file '$T_DIR/none.token': No such file or directory"
check_fail 2 "no flag takes a token" "$GQ" ls --token "$alice"
finish
