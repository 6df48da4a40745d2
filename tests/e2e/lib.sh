# tests/e2e/lib.sh - sourced by every e2e script.
#
# Gives each script its own scratch directory, HOME, XDG dirs, TZ=UTC,
# LC_ALL=C, NO_COLOR, its own server socket, and a trap that stops exactly
# the servers it started. Reports TAP-like lines: "ok N - desc".
#
#   . "$(dirname "$0")/lib.sh"
#   server_start [extra gq serve flags]     # sets GQ_SERVER, SERVER_PID
#   check "desc" cmd args...                # ok when cmd exits 0
#   check_fail CODE "desc" cmd args...      # ok when cmd exits CODE
#   check_eq "desc" "$got" "$want"
#   check_match "desc" "$got" REGEX
#   check_golden "desc" file golden-name    # diff -u against tests/e2e/golden/
#   state ID; wait_state ID STATE...         # a job's state; poll until it is one of them
#   finish                                  # at the end; exit status = failures
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/../.." && pwd)/gq}
T_SRC=$(cd "$(dirname "$0")" && pwd)
T_NAME=$(basename "$0" .sh)
# Short path: unix socket paths are limited to 108 bytes.
T_DIR=$(mktemp -d /tmp/gqt.XXXXXX)
export HOME="$T_DIR/home" XDG_CONFIG_HOME="$T_DIR/home/.config" \
	XDG_STATE_HOME="$T_DIR/home/.local/state" XDG_RUNTIME_DIR="$T_DIR/run" \
	TZ=UTC LC_ALL=C NO_COLOR=1
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
unset GQ_SERVER GQ_TOKEN_FILE GQ_BACKEND
# HM: a clock time in a regex. The manual clock starts at the real time,
# so a time a few hours on may be tomorrow and carry its date ("Dec 05 00:50").
HM='([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+'
T_N=0
T_FAILED=0
T_PIDS=""

t_cleanup() {
	for p in $T_PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $T_PIDS; do
		for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
	done
	# Job supervisors started by our servers name our scratch dir; each job
	# runs in its own process group under its supervisor. Jobs outlive their
	# server by design, so stop them here, or they outlive the test.
	for sp in $(pgrep -f "$T_DIR" 2>/dev/null); do
		for c in $(pgrep -P "$sp" 2>/dev/null); do
			g=$(ps -o pgid= -p "$c" 2>/dev/null | tr -d ' ')
			[ -n "$g" ] && [ "$g" != 0 ] && kill -KILL -- "-$g" 2>/dev/null
		done
	done
	pkill -KILL -f "$T_DIR" 2>/dev/null
	rm -rf "$T_DIR"
}
trap t_cleanup EXIT

t_report() { # ok?, desc
	T_N=$((T_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $T_N - $T_NAME: $2"
	else
		echo "not ok $T_N - $T_NAME: $2"
		T_FAILED=$((T_FAILED + 1))
	fi
}

check() {
	desc=$1; shift
	if out=$("$@" 2>&1); then t_report 0 "$desc"; else
		t_report 1 "$desc"; echo "# command: $*"; echo "$out" | sed 's/^/#   /' | head -20
	fi
}

check_fail() {
	want=$1; desc=$2; shift 2
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" = "$want" ]; then t_report 0 "$desc"; else
		t_report 1 "$desc"; echo "# command: $*: exit $rc, want $want"
		echo "$out" | sed 's/^/#   /' | head -20
	fi
}

check_eq() {
	if [ "$2" = "$3" ]; then t_report 0 "$1"; else
		t_report 1 "$1"; echo "# got:"; printf '%s\n' "$2" | sed 's/^/#   /' | head -30
		echo "# want:"; printf '%s\n' "$3" | sed 's/^/#   /' | head -30
	fi
}

check_match() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then t_report 0 "$1"; else
		t_report 1 "$1"; echo "# no match for /$3/ in:"; printf '%s\n' "$2" | sed 's/^/#   /' | head -30
	fi
}

check_golden() { # desc, file, golden name (GOLDEN_UPDATE=1 rewrites it)
	g="$T_SRC/golden/$3"
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then mkdir -p "$T_SRC/golden"; cp "$2" "$g"; fi
	if d=$(diff -u "$g" "$2" 2>&1); then t_report 0 "$1"; else
		t_report 1 "$1"; printf '%s\n' "$d" | sed 's/^/#   /' | head -40
	fi
}

# free_ports N: N distinct TCP ports of 127.0.0.1 that no socket uses at
# the moment, chosen by the kernel (bind to port 0), one a line.
# A port derived from $$ may be one another script's client is using.
free_ports() {
	python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in ss))
' "$1"
}

# policy_no_headroom: a policy repository at $T_DIR/repo (GQ_POLICY_REPO,
# R) whose headroom.share is 0: on one small machine, 15 % held back for P0
# would keep P1 jobs from GPUs the tests give them.
policy_no_headroom() {
	R="$T_DIR/repo"
	export GQ_POLICY_REPO="$R"
	printf '[user]\n\tname = Admin\n\temail = admin@example.org\n' >"$HOME/.gitconfig"
	"$GQ" policy init >/dev/null
	printf '#!/bin/sh\nsed -i -e "s/^\\tshare = 0.15$/\\tshare = 0/" "$1"\n' >"$T_DIR/ed.sh"
	chmod +x "$T_DIR/ed.sh"
	EDITOR="$T_DIR/ed.sh" "$GQ" policy edit -m "No headroom on one machine" >/dev/null 2>&1
}

# server_start [flags...]: a gq serve on a socket in the scratch dir, with a
# manual clock, 8 GPU slots by default. Waits until it answers.
server_start() {
	SERVER_SOCK="$T_DIR/sock"
	SERVER_STATE="$T_DIR/state"
	"$GQ" serve --listen "unix:$SERVER_SOCK" --state-dir "$SERVER_STATE" --manual-clock "$@" \
		>>"$T_DIR/server.log" 2>&1 &
	SERVER_PID=$!
	T_PIDS="$T_PIDS $SERVER_PID"
	export GQ_SERVER="unix:$SERVER_SOCK"
	for _ in $(seq 1 100); do
		[ -S "$SERVER_SOCK" ] && curl -sf --unix-socket "$SERVER_SOCK" http://gq/v1/ping >/dev/null 2>&1 && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "# server did not start:"; sed 's/^/#   /' "$T_DIR/server.log" | tail -20
	return 1
}

server_stop() { # SIGTERM and wait
	kill -TERM "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
}

# state ID: the job's state as gq show says it. A script may define its own
# (through the API, say): wait_state asks whichever state() there is.
state() { "$GQ" show --json "$1" 2>/dev/null | jq -r .state; }

# wait_state ID STATE...: a short poll (at most ~10 s) until job ID is in
# one of the STATEs; says where it is when it is not.
wait_state() {
	local s want
	for _ in $(seq 1 200); do
		s=$(state "$1")
		for want in "${@:2}"; do [ "$s" = "$want" ] && return 0; done
		sleep 0.05
	done
	echo "# job $1 is $(state "$1"), not ${*:2}"
	return 1
}

finish() {
	exit $((T_FAILED > 0))
}
