#!/bin/bash
# t91-faults: what a crash, a killed supervisor, a removed WAL or an
# unwritable state directory must not do to a gq serve: fail a job that
# never ran, undo an applied policy, keep a dead job's GPUs, acknowledge
# writes it will lose, fail a job it merely could not start yet.
# Needs root for the last part (a personal server of a second user, whose
# own run directory it cannot write).
. "$(dirname "$0")/lib.sh"
printf '[user]\n\tname = Ada Admin\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
jid() { sed -n 's/^submitted job \([0-9]*\).*/\1/p'; }
gone() { # PID: waits (at most 10 s) until it is gone
	for _ in $(seq 1 200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
	return 1
}
events_of() { "$GQ" events --json | jq -r --argjson j "$1" '.[] | select(.job == $j and .kind == "state") | "\(.from)->\(.to) \(.reason)"'; }

# 1. kill -9 of the server between a job's journalled start and its
# supervisor's fork: the job never ran, so it is pending again, then runs.
server_start --gpus 2
a=$("$GQ" submit --hold --gpus 1 -- sh -c "echo ran >>'$T_DIR/ran'" | jid)
server_stop
GQ_TEST_KILL_BEFORE_FORK=1 server_start --gpus 2
"$GQ" release "$a" >/dev/null 2>&1 # answered, or not: the server dies at the start
check "the server dies at the job's start" gone "$SERVER_PID"
server_start --gpus 2
check "after the restart the job runs and completes" wait_state "$a" completed
check_eq "it ran once" "$(cat "$T_DIR/ran" 2>/dev/null)" ran
check_match "its events say it was started, then not started, not that it failed" \
	"$(events_of "$a" | tr '\n' '|')" \
	"pending->starting [^|]*\|starting->pending not started before the server stopped\|pending->starting"
check_eq "... and no failure" "$(events_of "$a" | grep -c failed)" 0

# 2. A supervisor killed with SIGKILL: the running server notices, the job
# ends as lost, its process is killed and its GPUs go to the next job.
b=$("$GQ" submit --gpus 2 -- sleep 1000.91 | jid)
check "a 2-GPU job runs" wait_state "$b" running
c=$("$GQ" submit --gpus 1 -- sleep 1000.92 | jid)
sup=$(pgrep -f "__supervise $SERVER_STATE/run/$b\$")
check_match "its supervisor is found" "$sup" '^[0-9]+$'
kill -KILL "$sup"
check "within seconds the job is failed" wait_state "$b" failed
check_match "... as lost" "$(events_of "$b" | tail -1)" "^running->failed lost: its supervisor died$"
check "the job's own process is gone" gone "$(pgrep -f 'sleep 1000.91' | head -1)"
check "the next job gets the GPUs" wait_state "$c" running
"$GQ" cancel "$c" >/dev/null

# 3. An applied revision survives a clean stop and a kill -9; a commit
# never applied does not go live at a restart.
export GQ_POLICY_REPO="$SERVER_STATE/policy"
first=$("$GQ" policy log --json | jq -r '.[0].commit')
printf '#!/bin/sh\nsed -i -e "s/^\\tcap = 0.5$/\\tcap = 0.4/" "$1"\n' >"$T_DIR/ed.sh"
chmod +x "$T_DIR/ed.sh"
EDITOR="$T_DIR/ed.sh" "$GQ" policy edit -m "Cap 0.4" >/dev/null
second=$("$GQ" policy log --json | jq -r '.[0].commit')
in_force() { "$GQ" policy check --json "$first" | jq -r .impact.policy_in_force; }
check "apply HEAD" "$GQ" policy apply
check_eq "HEAD is in force" "$(in_force)" "$second"
check "apply HEAD~1" "$GQ" policy apply HEAD~1
check_eq "HEAD~1 is in force" "$(in_force)" "$first"
server_stop
server_start --gpus 2
check_eq "after a clean stop HEAD~1 is still in force" "$(in_force)" "$first"
kill -KILL "$SERVER_PID"
gone "$SERVER_PID"
printf '#!/bin/sh\nsed -i -e "s/^\\tcap = 0.4$/\\tcap = 0.3/" "$1"\n' >"$T_DIR/ed.sh"
EDITOR="$T_DIR/ed.sh" "$GQ" policy edit -m "Cap 0.3" >/dev/null
server_start --gpus 2
check_eq "after kill -9 and a new commit, HEAD~2 (applied) is in force" "$(in_force)" "$first"
unset GQ_POLICY_REPO

# 4. The WAL removed underneath: writes are refused at once, and what was
# acknowledged before survives a kill -9.
n0=$("$GQ" ls --all --json | jq length)
for i in $(seq 1 20); do "$GQ" submit --hold --gpus 0 -- true >/dev/null; done
last=$("$GQ" ls --all --json | jq 'map(.id) | max')
rm "$SERVER_STATE/gq.db-wal"
out=$("$GQ" submit --hold --gpus 0 -- true 2>&1)
rc=$?
check_match "a submission after the WAL is removed is refused, exit 1, naming it" "$rc $out" \
	"^1 .*gq.db-wal' was removed or replaced while gq serve ran; writes are refused"
check_eq "... in one line" "$(echo "$out" | wc -l)" 1
kill -KILL "$SERVER_PID"
gone "$SERVER_PID"
server_start --gpus 2
check_eq "after kill -9 and a restart the 20 acknowledged jobs are there" \
	"$("$GQ" ls --all --json | jq length)" "$((n0 + 20))"
check_eq "the next id follows them" "$("$GQ" submit --hold --gpus 0 -- true | jid)" "$((last + 1))"

# 5. A run directory the server cannot create: the job waits, it does not
# fail, and it runs once the directory can be made.
if [ "$(id -u)" != 0 ]; then
	t_report 0 "an unwritable state directory # skip needs root (a second user's server)"
	finish
fi
U=gqt91a$$
users_cleanup() {
	t_cleanup
	userdel "$U" 2>/dev/null
}
trap users_cleanup EXIT
useradd -M -N -g users -s /bin/sh "$U"
chmod 755 "$T_DIR"
H="$T_DIR/home-u"
mkdir -p "$H"
chown "$U:users" "$H"
asu() { setpriv --reuid "$U" --regid users --init-groups env HOME="$H" XDG_RUNTIME_DIR= \
	XDG_STATE_HOME="$H/.state" XDG_CONFIG_HOME="$H/.config" GQ_SERVER="unix:$H/sock" "$@"; }
asu "$GQ" serve --listen "unix:$H/sock" --state-dir "$H/state" --manual-clock --gpus 1 \
	>>"$T_DIR/server-u.log" 2>&1 &
T_PIDS="$T_PIDS $!"
for _ in $(seq 1 100); do asu "$GQ" ls >/dev/null 2>&1 && break; sleep 0.05; done
chmod 500 "$H/state/run"
d=$(asu "$GQ" submit --gpus 1 -- true | jid)
for _ in $(seq 1 100); do
	asu "$GQ" events --json | jq -e ".[] | select(.job == $d and .to == \"pending\" and .kind == \"state\")" >/dev/null 2>&1 && break
	sleep 0.05
done
ev=$(asu "$GQ" events --json | jq -r ".[] | select(.job == $d and .kind == \"state\") | \"\(.from)->\(.to) \(.reason)\"")
check_match "the job whose run directory cannot be made is pending again, saying why" "$ev" \
	"^starting->pending not started: cannot create '$H/state/run/$d': Permission denied$"
check_eq "... not failed" "$(asu "$GQ" show --json "$d" | jq -r .state)" pending
chmod 700 "$H/state/run"
ok=1
for _ in $(seq 1 300); do
	[ "$(asu "$GQ" show --json "$d" | jq -r .state)" = completed ] && { ok=0; break; }
	sleep 0.05
done
t_report $ok "once the directory can be made, it runs (within the 10 s pause)"
finish
