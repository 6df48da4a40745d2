#!/bin/bash
# t25-autostart: from a clean environment (no GQ_SERVER, no config, no
# server), the first commands that need a scheduler start the user's own
# gq serve in the background, tmux-style — one, even when two commands
# start together — and the next ones reuse it; completion never starts
# one. The test stops the server it caused.
. "$(dirname "$0")/lib.sh"
sock="$XDG_RUNTIME_DIR/gq/sock"
log="$XDG_STATE_HOME/gq/serve.log"
server_pids() { pgrep -f "serve --listen unix:$sock"; }

check_eq "no server to begin with" "$(server_pids)" ""
check_eq "completion offers no job ids and starts nothing" "$("$GQ" __complete jobs)" ""
check_eq "still no server" "$(server_pids)" ""

"$GQ" ls >"$T_DIR/a" 2>&1 & a=$!
"$GQ" submit --hold -- true >"$T_DIR/b" 2>&1 & b=$!
wait $a; ra=$?; wait $b; rb=$?
check_eq "two commands at once both succeed" "$ra $rb" "0 0"
check_eq "the submit queued its job" "$(cat "$T_DIR/b")" "submitted job 1"
check_eq "one server for both" "$(server_pids | wc -l)" 1
pid=$(server_pids)
check "it listens on the default socket" test -S "$sock"
check "it logs to XDG_STATE_HOME/gq/serve.log" test -s "$log"
check "it is detached: in a session of its own" test "$(ps -o sid= -p "$pid" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')"
check "and not our child" test "$(ps -o ppid= -p "$pid" | tr -d ' ')" != $$
check_eq "the socket directory is private" "$(stat -c %a "$XDG_RUNTIME_DIR/gq")" 700
check_eq "the next command uses it" "$("$GQ" show --json 1 | jq -c '[.id, .held]')" '[1,true]'
check_eq "and starts no second one" "$(server_pids)" "$pid"

# A configured server that is not there is an error, not a new server.
out=$(GQ_SERVER="unix:$T_DIR/elsewhere" "$GQ" ls 2>&1); rc=$?
check_eq "a configured server that does not answer: exit 5" "$rc" 5
check_match "names it and says what to do" "$out" "^gq: cannot reach gq serve at 'unix:$T_DIR/elsewhere': .*; start it with 'gq serve' or set GQ_SERVER$"
check_eq "and starts nothing there" "$(pgrep -f "serve --listen unix:$T_DIR/elsewhere")" ""

# HOME empty (cron, env -i) is not the current directory: the home is the
# passwd entry's, and with none either gq says so and starts nothing.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nohome=54321
	while getent passwd "$nohome" >/dev/null; do nohome=$((nohome + 1)); done
	mkdir -p "$T_DIR/cwd" "$T_DIR/run-$nohome"
	chown "$nohome:$nohome" "$T_DIR/cwd" "$T_DIR/run-$nohome"
	chmod 700 "$T_DIR/run-$nohome"
	chmod 711 "$T_DIR"
	as() { # UID CMD...: as that user, HOME empty, no XDG_STATE_HOME/XDG_CONFIG_HOME
		local u=$1; shift
		(cd "$T_DIR/cwd" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME= \
			XDG_RUNTIME_DIR="$T_DIR/run-$nohome" setpriv --reuid="$u" --regid="$u" --clear-groups "$@")
	}
	out=$(as "$nohome" "$GQ" ls 2>&1); rc=$?
	check_eq "HOME empty and no passwd entry: exit 2, one line" "$rc $out" \
		"2 gq: no home directory: HOME is not set and uid $nohome has no home in the passwd database; set HOME to an absolute path"
	check_eq "and nothing made in the current directory" "$(ls -A "$T_DIR/cwd")" ""
	out=$(as "$(id -u nobody)" "$GQ" policy log 2>&1)
	check_match "HOME empty: the passwd entry's home" "$out" "'/nonexistent/\.local/state/gq/policy'"
else
	t_report 0 "# skip HOME checks: they need root and setpriv"
fi

kill -TERM "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
check "the server is stopped at the end" sh -c "! kill -0 $pid 2>/dev/null"
finish
