#!/bin/bash
# t1e: a decimal-comma locale changes no number. The suite's main paths —
# the client and a server it starts for itself — under de_DE.UTF-8, which
# the test builds with localedef into a scratch LOCPATH: policy defaults
# and files parse ("1.5" stays one and a half), the wire and the journal
# keep a decimal point, and every command answers.
. "$(dirname "$0")/lib.sh"
loc="$T_DIR/locale"
mkdir -p "$loc"
if ! localedef -i de_DE -f UTF-8 "$loc/de_DE.UTF-8" >"$T_DIR/localedef.log" 2>&1; then
	# localedef warns (exit 1) on some definitions yet writes the locale.
	[ -e "$loc/de_DE.UTF-8/LC_NUMERIC" ] || { sed 's/^/# /' "$T_DIR/localedef.log"; }
fi
export LOCPATH="$loc" LC_ALL=de_DE.UTF-8
# Under the sanitizers: glibc's own copy of LOCPATH is not gq's leak.
export LSAN_OPTIONS="suppressions=$T_SRC/glibc-locale.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
check_eq "the locale is in force: printf(1) writes 1,5" "$(env printf '%.1f' 1.5)" "1,5"

sock="$XDG_RUNTIME_DIR/gq/sock"
server_pids() { pgrep -f "serve --listen unix:$sock"; }
check_eq "gq ls works and starts the user's server" "$("$GQ" ls >/dev/null 2>&1; echo $?)" 0
pid=$(server_pids)
T_PIDS="$T_PIDS $pid"
check_eq "the server runs in the same locale" \
	"$(tr '\0' '\n' <"/proc/$pid/environ" | grep '^LC_ALL=')" "LC_ALL=de_DE.UTF-8"
check_eq "a submission" "$("$GQ" submit --gpus 2 --tier P2 --estimate 90m -- sleep 300)" "submitted job 1"
"$GQ" submit --gpus 8 --tier P1 --name big -- true >/dev/null
check_match "gq ls shows weights with a decimal point" "$("$GQ" ls)" ' 30\.0 '
check_eq "gq ls --json is JSON with the weights as numbers" \
	"$("$GQ" ls --json | jq -c '[.[] | .weight] | map(type) | unique')" '["number"]'
check_match "gq why answers with a point in the weight" "$("$GQ" why 2)" '30\.0'
check "gq eta answers" "$GQ" eta
check "gq eta --json is JSON" sh -c "\"$GQ\" eta --json | jq -e . >/dev/null"
check "gq show answers" "$GQ" show 1
check "gq stats answers" "$GQ" stats
check "gq nodes answers" "$GQ" nodes
key() { curl -s --unix-socket "$sock" http://gq/v1/snapshot | jq -r ".policy.keys[\"$1\"]"; }
check_eq "the built-in defaults parse: P0's price is 1.5" "$(key tier.P0.price)" 1.5
check_eq "and the headroom 0.15" "$(key headroom.share)" 0.15
check_match "the snapshot's numbers have decimal points, not commas" \
	"$(curl -s --unix-socket "$sock" http://gq/v1/snapshot | grep -o '"usage":[0-9.,]*' | head -1)" '^"usage":[0-9]+\.[0-9]+,$'

# The policy repository the server made, edited in this locale.
pol="$XDG_STATE_HOME/gq/policy"
git -C "$pol" config user.email t@example.com
git -C "$pol" config user.name t
git config -f "$pol/policy.conf" tier.P2.price 0.25
git -C "$pol" commit -qam "P2 cheaper" -m "Expected: nothing"
check "gq policy check reads 0.25" "$GQ" policy check
check "gq policy apply" "$GQ" policy apply
for _ in $(seq 1 100); do
	p=$(key tier.P2.price)
	[ "$p" = 0.25 ] && break
	sleep 0.05
done
check_eq "the server applied price 0.25" "$p" 0.25
check_eq "and a restart reads its journal back" \
	"$(kill -TERM "$pid"; for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	   "$GQ" ls >/dev/null 2>&1; echo $?)" 0
pid=$(server_pids)
T_PIDS="$T_PIDS $pid"
check_eq "both jobs are still known after the restart" "$("$GQ" ls --all --json | jq 'length')" 2
check "no BUG or fatal in the server's log" sh -c "! grep -E 'BUG|fatal' \"$XDG_STATE_HOME/gq/serve.log\""
kill -TERM "$pid" 2>/dev/null
finish
