#!/bin/bash
# ts06-slurm-front.sh - gq serve --slurm in front of the real Slurm kit
# (gq-serve(8), "In front of a Slurm cluster"): 1 ids and states through
# the front equal squeue's, and why equals the Slurm backend's own; 2 ten
# clients' gq ls add no job query to slurmctld's (GET /diag's
# REQUEST_JOB_INFO count over a window, against the front's own polls);
# 3 an action Slurm's REST API cannot do is refused as the Slurm backend
# refuses it (the actions themselves: ts09); 4 a front whose slurmrestd port has
# nothing listening says "upstream unreachable since T" and exits 5; 5 a
# front behind a socat relay that is stopped (its process group, by id)
# says its data is old on stderr, and recovers when the relay is back.
# slurmrestd itself is never stopped: the kit is shared. Runs as root (the
# front with the kit's root token, clients as alice through runuser);
# cancels alice's jobs first and last. Skips with one line when the kit
# is not running; part 5 skips without socat.
TS=ts06
. "$(dirname "$0")/slurm.sh"
HM='([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+'
# The command line, without the kit.
# (No scontrol on its PATH: no token from it either.)
out=$(env -u SLURM_JWT PATH=/nonexistent "$GQ" serve --slurm http://127.0.0.1:1 --listen unix:/nonexistent/s 2>&1)
check_eq "no token: exit 4" "$?" 4
check_match "... says why and how to give one" "$out" "no Slurm token for the front \('scontrol token username=[a-z]+' failed: cannot run scontrol: .*\): set SLURM_JWT .* --slurm-token-file FILE\$"
out=$("$GQ" serve --slurm http://127.0.0.1:1 --gpus 2 2>&1)
check_eq "--slurm with a scheduler's option: exit 2" "$?" 2
slurm_env
work=$(mktemp -d)
chmod 1777 "$work"
fronts=()
relay=
cleanup() {
	local p
	for p in "${fronts[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$relay" ] && kill -- "-$relay" 2>/dev/null
	scancel -u alice >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
scancel -u alice >/dev/null 2>&1
sleep 1
# front NAME URL: starts gq serve --slurm URL on unix:$work/NAME.sock
# with root's token, its log in $work/NAME.log.
front() {
	mkdir -p "$work/$1-home"
	env -i SLURM_JWT="$SLURM_ADMIN_JWT" HOME="$work/$1-home" XDG_CACHE_HOME="$work/$1-home/cache" \
		PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" serve --slurm "$2" --listen "unix:$work/$1.sock" \
		--log-level debug >"$work/$1.log" 2>&1 &
	fronts+=($!)
}
# via NAME CMD...: runs gq CMD as alice through front NAME.
via() {
	local f=$1
	shift
	(cd "$work" && runuser -u alice -- env -i GQ_SERVER="unix:$work/$f.sock" HOME="$work" \
		XDG_CONFIG_HOME="$work/cfg" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
# direct CMD...: gq CMD as alice straight to slurmrestd (the Slurm backend).
direct() {
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache-direct" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
job_queries() { # slurmctld's REQUEST_JOB_INFO count so far
	curl -s -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $SLURM_ADMIN_JWT" \
		"$SLURM_URL/slurm/$SLURM_API_VERSION/diag" |
		jq '[.statistics.rpcs_by_message_type[] | select(.message_type == "REQUEST_JOB_INFO") | .count] | add // 0'
}
squeue_ids() { # "ID state" lines of alice's jobs, as squeue says
	squeue -h -u alice -o '%i %T' | awk '{print $1, tolower($2)}' | sort -n
}
front_ids() { # the same through the front
	via main ls --user alice --format '{id} {state}' 2>/dev/null | sort -n
}

# Three one-GPU jobs in QOS p2 (at most 2 GPUs per user: the third waits
# with QOSMaxGRESPerUser), one held.
for i in 1 2 3; do
	runuser -u alice -- env -u SLURM_JWT sbatch -Q -p gpu -q p2 --gres=gpu:1 -t 10 \
		-J "front$i" -o /dev/null --wrap 'sleep 300' >/dev/null
done
runuser -u alice -- env -u SLURM_JWT sbatch -Q -p gpu -H --gres=gpu:1 -t 10 -J fronth \
	-o /dev/null --wrap 'sleep 300' >/dev/null
front main "$SLURM_URL"
# 1: the same ids and states as squeue, once both have settled (the front
# sees a change within 30 s, 2 s while things change).
want=
got=
for ((i = 0; i < 40; i++)); do
	want=$(squeue_ids)
	got=$(front_ids)
	[ -n "$got" ] && [ "$got" = "$want" ] && [ "$(echo "$want" | grep -c running)" = 2 ] && break
	sleep 1
done
check_eq "ids and states through the front equal squeue's" "$got" "$want"
check_eq "four jobs of alice's, two running" "$(echo "$got" | wc -l) $(echo "$got" | grep -c running)" "4 2"
pend=$(squeue -h -u alice -t PD -o '%i %q' | awk '$2 == "p2" {print $1}' | head -1)
# Slurm's reason reads None until its next scheduler pass, and the front
# sees it at its next poll (up to 30 s when idle).
for ((i = 0; i < 40; i++)); do
	w1=$(via main why "$pend" 2>&1 | sed -E 's/[0-9]+s\b/Ns/g')
	w2=$(direct why "$pend" 2>&1 | sed -E 's/[0-9]+s\b/Ns/g')
	[ "$w1" = "$w2" ] && printf '%s' "$w1" | grep -q QOSMaxGRESPerUser && break
	sleep 1
done
echo "# why $pend through the front: $w1"
check_eq "why through the front equals the Slurm backend's" "$w1" "$w2"
check_match "why names Slurm's reason" "$w1" "QOSMaxGRESPerUser"
# gq top through the front: its queue shows the pending job (it followed
# the front's events first and went offline, "waiting for the first
# snapshot", before the front answered it none).
if command -v tmux >/dev/null; then
	tmux -L "ts06$$" new-session -d -x 120 -y 30 "runuser -u alice -- env -i GQ_SERVER=unix:$work/main.sock HOME=$work TERM=xterm TZ=UTC LC_ALL=C $GQ top"
	for ((i = 0; i < 20; i++)); do
		pane=$(tmux -L "ts06$$" capture-pane -p 2>/dev/null)
		printf '%s\n' "$pane" | grep -Eq "^ +[0-9]+ +${pend%%_*} +alice " && break
		sleep 0.5
	done
	tmux -L "ts06$$" kill-server 2>/dev/null
	check_match "top through the front: the pending job in its queue" "$pane" "^ +[0-9]+ +${pend%%_*} +alice "
fi

# 2: one client, then ten, each running gq ls as fast as it can for 15 s.
# Between them no squeue (it asks slurmctld too).
load() { # HOW CLIENTS SECONDS -> slurmctld's job queries meanwhile, and gq ls runs
	local before after pids=() c end p0
	p0=$(grep -c ' poll ' "$work/main.log")
	before=$(job_queries)
	end=$((SECONDS + $3))
	for ((c = 0; c < $2; c++)); do
		(k=0; while [ $SECONDS -lt $end ]; do $1 ls >/dev/null 2>&1; k=$((k + 1)); done; echo $k >"$work/runs.$c") &
		pids+=($!)
	done
	wait "${pids[@]}"
	after=$(job_queries)
	echo "$((after - before)) $(cat "$work"/runs.* | awk '{s += $1} END {print s}')" \
		"$(($(grep -c ' poll ' "$work/main.log") - p0))"
	rm -f "$work"/runs.*
}
via_main() { via main "$@"; }
q1=$(load via_main 1 15)
q10=$(load via_main 10 15)
qd=$(load direct 10 5)
echo "# slurmctld job queries, gq ls runs, the front's polls: 15 s of 1 client through the" \
	"front $q1, of 10 clients $q10; 5 s of 10 clients straight to slurmrestd $qd"
# One job query per poll of the front's (at most every 2 s), whatever the
# clients; 2 more allowed for someone else on the kit.
set -- $q1
check_eq "1 client: the front's polls only" "$(($1 <= $3 + 2 && $3 <= 8))" 1
set -- $q10
check_eq "10 clients: the front's polls only" "$(($1 <= $3 + 2 && $3 <= 8))" 1
# the count does see clients that ask slurmrestd themselves: one each per gq ls
set -- $qd
check_eq "10 clients straight to slurmrestd: one job query per gq ls" "$(($1 >= $2 && $2 > 10))" 1

# 3: what Slurm's REST API cannot do is refused as the Slurm backend does
out=$(via main requeue "$pend" 2>&1)
check_eq "requeue through the front: exit 5" "$?" 5
check_eq "... with the Slurm backend's line" "$out" "$(direct requeue "$pend" 2>&1)"
check_eq "... and the job is still pending" "$(squeue -h -j "$pend" -o %T)" PENDING

# 4: nothing listens: unreachable since T, exit 5
port=6899
while ss -ltn | awk '{print $4}' | grep -q ":$port\$"; do port=$((port + 1)); done
front dead "http://127.0.0.1:$port"
sleep 1
out=$(via dead ls 2>&1)
check_eq "a front with no slurmrestd: exit 5" "$?" 5
check_match "... upstream unreachable since T" "$out" \
	"^gq: upstream unreachable since [0-9-]+T[0-9:]+Z, no snapshot yet: "
check_match "... and its log says so" "$(cat "$work/dead.log")" "upstream unreachable: "

# 5: data, then slurmrestd gone (a relay stopped), then back
if ! command -v socat >/dev/null; then
	echo "ok $((n + 1)) - ts06 # SKIP no socat for the relay"
else
	rport=$((port + 1))
	while ss -ltn | awk '{print $4}' | grep -q ":$rport\$"; do rport=$((rport + 1)); done
	start_relay() {
		setsid socat "TCP-LISTEN:$rport,fork,reuseaddr,bind=127.0.0.1" "TCP:${SLURM_URL#http://}" &
		relay=$!
		sleep 0.5
	}
	start_relay
	front relayed "http://127.0.0.1:$rport"
	for ((i = 0; i < 20; i++)); do via relayed ls >/dev/null 2>&1 && break; sleep 0.5; done
	err=$(via relayed ls 2>&1 >/dev/null)
	check_eq "through a relay: no staleness line while it answers" "$err" ""
	kill -- "-$relay"
	relay=
	for ((i = 0; i < 40; i++)); do
		grep -q "upstream unreachable" "$work/relayed.log" && break
		sleep 1
	done
	out=$(via relayed ls --user alice --format '{id} {state}' 2>"$work/err")
	rc=$?
	check_eq "relay gone: the old snapshot, exit 0" "$rc" 0
	check_match "... says upstream unreachable since T with the data's age" "$(cat "$work/err")" \
		"^gq: upstream unreachable since [0-9-]+ $HM \\(gq serve at '[^']+'\\); data is [0-9]+ s old\$"
	check_eq "... the data is the last snapshot" "$(echo "$out" | sort -n)" "$want"
	start_relay
	for ((i = 0; i < 45; i++)); do
		err=$(via relayed ls 2>&1 >/dev/null)
		[ -z "$err" ] && break
		sleep 1
	done
	check_eq "relay back: recovered by itself (within the 30 s interval)" "$err" ""
fi

# 6: history for every user's jobs: a running job of alice's is predicted
# from her completed runs of its name (20 s, not its 1 h limit), through a
# front reading with root's token as straight to slurmrestd with hers.
hjob() { runuser -u alice -- env -u SLURM_JWT sbatch -p debug -t 60 -J fronthist \
	-o /dev/null --parsable --wrap "sleep $1"; }
H1=$(hjob 20)
H2=$(hjob 20)
for ((i = 0; i < 80; i++)); do
	[ "$(sacct -n -X -j "$H1,$H2" -o state 2>/dev/null | grep -c COMPLETED)" = 2 ] && break
	sleep 1
done
front hist "$SLURM_URL" # a new front: it reads slurmdbd at its start
H3=$(hjob 600)
left=
for ((i = 0; i < 30; i++)); do
	left=$(via hist ls --json 2>/dev/null | jq --argjson id "$H3" \
		'.[] | select(.id == $id and .state == "running") | .predicted_end - .start_time')
	[ -n "$left" ] && break
	sleep 1
done
check_match "history through the front: alice's running job from her completed runs, not its limit" \
	"${left:-none}" '^([0-9]|[1-9][0-9]|1[01][0-9])$'
scancel "$H3" 2>/dev/null

# 7: the real slurmrestd killed by its PID, then started again as the kit
# starts it: the front says so meanwhile and recovers by itself.
KIT=$(cd "$(dirname "$0")/../../.." 2>/dev/null && pwd)/shared/slurm
[ -r "$KIT/common.sh" ] || KIT=/work/shared/slurm
rest_up() { curl -sf -o /dev/null -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $ADMIN_JWT" \
	"$SLURM_URL/slurm/$SLURM_API_VERSION/ping"; }
if [ ! -r "$KIT/common.sh" ]; then
	echo "ok $((n + 1)) - ts06 # SKIP the kit's common.sh is not there"
	n=$((n + 1))
else
	(
		. "$KIT/common.sh" # pid_of, spawn
		rpid=$(pid_of slurmrestd) && kill "$rpid"
	)
	for ((i = 0; i < 20; i++)); do rest_up || break; sleep 0.5; done
	for ((i = 0; i < 40; i++)); do
		grep -q "upstream unreachable" "$work/main.log" && break
		sleep 1
	done
	out=$(via main ls --user alice --format '{id}' 2>"$work/err")
	check_eq "slurmrestd killed: the front answers its last snapshot, exit 0" "$?" 0
	check_match "... and says since when it is unreachable" "$(cat "$work/err")" \
		"^gq: upstream unreachable since [0-9-]+ $HM \(gq serve at '[^']+'\); data is [0-9]+ s old\$"
	# started again as the kit starts it, without this script's descriptors
	(
		for fd in $(ls "/proc/$BASHPID/fd"); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
		. "$KIT/common.sh"
		spawn slurmrestd "$SLURM_TEST_LOG_DIR/slurmrestd.log" env SLURM_JWT=daemon \
			/usr/sbin/slurmrestd -a rest_auth/jwt -u "$SLURM_TEST_REST_USER" \
			-g "$SLURM_TEST_REST_USER" "127.0.0.1:$SLURM_TEST_REST_PORT"
	) >/dev/null 2>&1
	for ((i = 0; i < 60; i++)); do rest_up && break; sleep 0.5; done
	for ((i = 0; i < 45; i++)); do
		err=$(via main ls 2>&1 >/dev/null)
		[ -z "$err" ] && break
		sleep 1
	done
	check_eq "slurmrestd started again: the front recovered by itself" "$err" ""
fi

echo "# ts06: $n checks, $failed failed"
[ "$failed" = 0 ]
