#!/bin/bash
# ts08-slurm-front-events.sh - gq serve --slurm's events, from the
# differences between its polls of the real Slurm kit (gq-serve(8), "In
# front of a Slurm cluster"): 1 a job's whole life (submit, start, end
# with its exit code; cancel) and a requeue by a P0 preemption (the kit's
# p0 preempts p2, PreemptMode=REQUEUE) in gq events through the front;
# 2 gq events -f sees a hold as it happens; 3 gq stats through the front
# (starts, waits, the preemption, what it cannot know) and gq policy
# review refused in one line; 4 the front
# stopped, a job cancelled meanwhile, the front started again over the
# same state directory: the cancel recorded once, marked seen late, and
# nothing recorded twice; 5 (TS08_RESET=1 only, as .ci/run sets it: it
# restarts the shared kit) the kit's job ids reset: the front says so, keeps
# the old journal aside and starts a new one. Runs as root (the front
# with the kit's root token, clients as alice); cancels alice's and bob's
# jobs first and last. Skips with one line when the kit is not running.
TS=ts08
. "$(dirname "$0")/slurm.sh"
out=$("$GQ" serve --slurm http://127.0.0.1:1 --gpus 2 --state-dir /nonexistent 2>&1)
check_eq "--slurm takes --state-dir, not a scheduler's option: exit 2" "$?" 2
check_match "... and says so" "$out" "--slurm-token-file, --state-dir and --log-level"
slurm_env
work=$(mktemp -d)
chmod 1777 "$work"
front_pid=
tail_pid=
cleanup() {
	[ -n "$front_pid" ] && kill "$front_pid" 2>/dev/null
	[ -n "$tail_pid" ] && kill "$tail_pid" 2>/dev/null
	scancel -u alice >/dev/null 2>&1
	scancel -u bob >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
scancel -u alice >/dev/null 2>&1
scancel -u bob >/dev/null 2>&1
sleep 1
# front: starts gq serve --slurm over $work/state with root's token.
front() {
	env -i SLURM_JWT="$SLURM_ADMIN_JWT" HOME="$work" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C \
		"$GQ" serve --slurm "$SLURM_URL" --listen "unix:$work/front.sock" \
		--state-dir "$work/state" --log-level debug >>"$work/front.log" 2>&1 &
	front_pid=$!
	for ((i = 0; i < 40; i++)); do
		via ls >/dev/null 2>&1 && return
		sleep 0.25
	done
}
front_stop() {
	kill "$front_pid"
	wait "$front_pid" 2>/dev/null
	front_pid=
}
via() { # gq CMD as alice through the front
	(cd "$work" && runuser -u alice -- env -i GQ_SERVER="unix:$work/front.sock" HOME="$work" \
		XDG_CONFIG_HOME="$work/cfg" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
sb() { # USER SBATCH-ARGS... -> the job id
	local u=$1
	shift
	runuser -u "$u" -- env -u SLURM_JWT sbatch --parsable -o /dev/null "$@" | cut -d';' -f1
}
evs() { # JOB -> its events through the front, one "kind from>to reason" line
	# each, but for changes of Slurm's priority (its periodic recalculation
	# of a lone pending job is one)
	via events --job "$1" --json | jq -r '.[] | select(.kind != "priority") |
		"\(.kind) \(.from)>\(.to) \(.reason)\(if .late then " LATE" else "" end)"'
}
wait_ev() { # JOB REGEX SECONDS: until one of JOB's events matches
	local i
	for ((i = 0; i < $3 * 2; i++)); do
		evs "$1" | grep -Eq -- "$2" && return 0
		sleep 0.5
	done
	return 1
}
state_of() { squeue -h -j "$1" -o %T 2>/dev/null; }

front
# 1. A job's life: submitted, started, completed with its exit code; a
# failing one with its own; a cancelled one.
A=$(sb alice -p gpu -q p1 --gres=gpu:1 -t 5 -J evA --wrap 'sleep 3')
B=$(sb alice -p gpu -q p1 --gres=gpu:1 -t 5 -J evB --wrap 'sleep 2; exit 3')
C=$(sb alice -p gpu -q p1 --gres=gpu:1 -t 5 -J evC --wrap 'sleep 600')
wait_ev "$C" '^state pending>running started$' 30
scancel "$C"
wait_ev "$A" '^state running>completed' 40
wait_ev "$B" '^state running>failed' 40
wait_ev "$C" '^state running>cancelled' 40
check_eq "A: submitted, started, completed (exit 0), in order" "$(evs "$A")" \
	"submit pending>pending submitted
state pending>running started
state running>completed completed (exit 0)"
check_eq "B: failed with its exit code" "$(evs "$B" | tail -1)" "state running>failed failed (exit 3)"
check_eq "C: cancelled while running" "$(evs "$C" | tail -1)" "state running>cancelled cancelled"
check_eq "the actor of a submission is its user" \
	"$(via events --job "$A" --json | jq -r '.[0].actor')" alice

# 2. gq events -f through the front sees a hold and a release as they happen.
H=$(sb alice -p gpu -q p1 --gres=gpu:1 -t 5 -J evH --begin=now+1hour --wrap 'sleep 1')
wait_ev "$H" '^submit ' 30
last=$(via events --json | jq '.[-1].seq')
(cd "$work" && runuser -u alice -- env -i GQ_SERVER="unix:$work/front.sock" HOME="$work" \
	PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" events -f --after "$last" >"$work/follow" 2>&1) &
tail_pid=$!
sleep 1
runuser -u alice -- env -u SLURM_JWT scontrol hold "$H"
for ((i = 0; i < 60; i++)); do
	grep -Eq "#$H +hold " "$work/follow" && break
	sleep 0.5
done
check_match "events -f: the hold, as it happened" "$(cat "$work/follow")" "#$H +hold +- +slurm +held\$"
kill "$tail_pid" 2>/dev/null
wait "$tail_pid" 2>/dev/null
tail_pid=
runuser -u alice -- env -u SLURM_JWT scontrol release "$H"
wait_ev "$H" '^release ' 40
check_eq "H: held, then released" "$(evs "$H" | cut -d' ' -f1 | tr '\n' ' ')" "submit hold release "
scancel "$H"

# 3. A requeue by a P0 preemption: alice's p2 victim and a p1 filler hold
# gpu1's four a100; bob's p0 asks for two of them.
V=$(sb alice -p gpu -q p2 --gres=gpu:a100:2 -t 10 -J evVictim --wrap 'sleep 600')
F=$(sb alice -p gpu -q p1 --gres=gpu:a100:2 -t 10 -J evFill --wrap 'sleep 600')
for ((i = 0; i < 40; i++)); do
	[ "$(state_of "$V")$(state_of "$F")" = RUNNINGRUNNING ] && break
	sleep 0.5
done
wait_ev "$V" '^state pending>running' 30
U=$(sb bob -p gpu -q p0 --gres=gpu:a100:2 -t 10 -J evUrgent --wrap 'sleep 600')
wait_ev "$V" '^state stopping>pending requeued$' 60
check_eq "V: preempted by the P0, then requeued" "$(evs "$V" | tail -2)" \
	"preempt running>stopping preempted by job $U
state stopping>pending requeued"
wait_ev "$U" '^state pending>running' 40
check_match "U: the P0 started" "$(evs "$U")" "^state pending>running started\$"

# 4. gq stats through the front: the starts above, the preemption, and
# what it cannot know.
out=$(via stats 2>&1)
check_eq "stats through the front: exit 0" "$?" 0
echo "$out" | sed 's/^/# /'
# (The kit's jobs of an earlier run, still in Slurm, count too.)
check_eq "stats: A, B, C, F's starts at least in P1 of queue gpu" \
	"$(echo "$out" | awk '$1 == "gpu" && $2 == "P1" {print ($3 >= 4)}')" 1
check_eq "stats: V's preemption in P2 of queue gpu, OVER, WOULD and LOST '-'" \
	"$(echo "$out" | awk '$1 == "gpu" && $2 == "P2" {print ($9 >= 1), $7, $10, $11}')" "1 - - -"
check_match "stats: says what it cannot know" "$out" \
	"^OVER, WOULD and LOST are not recorded on Slurm: gq's wait limits, observe mode and checkpoints are not its\$"
j=$(via stats --json)
check_eq "stats --json: those columns null, named" \
	"$(printf '%s' "$j" | jq -c '[.not_recorded, (.groups[0] | .over_limit, .overtaken == null)]')" \
	'[["over_limit","would_preempt","work_lost","charged"],null,false]'

# gq policy review through the front: gq cannot see when Slurm took a
# revision, so it needs --applied TIME, and then compares the journal's
# windows before and after it, "-" for what Slurm does not record.
mkdir -p "$work/padmin"
printf '[user]\n\tname = ts08\n\temail = ts08@localhost\n' >"$work/padmin/.gitconfig"
env -i HOME="$work/padmin" GQ_POLICY_REPO="$work/policy" PATH=/usr/bin:/bin "$GQ" policy init >/dev/null
review() {
	env -i GQ_SERVER="unix:$work/front.sock" HOME="$work/padmin" GQ_POLICY_REPO="$work/policy" \
		PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" policy review "$@" HEAD >"$work/review" 2>&1
}
review
check_eq "policy review through the front without --applied: exit 2" "$?" 2
check_match "... says why in one line" "$(cat "$work/review")" \
	"^gq policy: review on Slurm needs --applied TIME: gq cannot see when slurm.conf or sacctmgr took the revision"
review --applied now-30s # after the journal began (ts08 started its front well before)
check_eq "policy review --applied now-30s through the front: exit 0" "$?" 0
out=$(cat "$work/review")
check_match "... the revision, applied as --applied says" "$out" \
	"^applied [0-9-]+ [0-9:]+ \+0000 \(as --applied says; Slurm applies its own policy\)$"
check_match "... the journal's starts in both windows" "$out" "^  starts +[0-9]+ +[0-9]+$"
check_match "... '-' for work lost, which Slurm does not record" "$out" "^  work lost \(GPU-h\) +- +-$"
check_match "... and one line naming what is not recorded" "$out" \
	"^not recorded on Slurm: over limit, would preempt, work lost, charged$"

# 5. Restart: the front stopped, F cancelled meanwhile, started again over
# the same state directory.
before=$(via events --json)
nbefore=$(printf '%s' "$before" | jq length)
front_stop
scancel "$F"
for ((i = 0; i < 20; i++)); do
	case $(state_of "$F") in RUNNING | COMPLETING) sleep 0.5 ;; *) break ;; esac
done
front
wait_ev "$F" 'cancelled' 40
check_eq "F: its cancel while the front was down, once, marked late" \
	"$(evs "$F" | grep -c cancelled) $(evs "$F" | grep cancelled)" \
	"1 state running>cancelled cancelled LATE"
check_match "gq events shows it as seen late" "$(via events --job "$F")" \
	"#$F +state +running->cancelled +slurm +cancelled \(seen late\)\$"
# A client of API version 1 (curl without the headers) reads it in the reason.
check_eq "to an API version 1 client: ' (seen late)' in the reason, no 'late'" \
	"$(curl -s --unix-socket "$work/front.sock" 'http://gq/v1/events?limit=10000' |
		jq -c "[.events[] | select(.job == $F and .to == \"cancelled\") | [.reason, has(\"late\")]]")" \
	'[["cancelled (seen late)",false]]'
after=$(via events --json)
check_eq "nothing recorded twice: one submission per job" \
	"$(printf '%s' "$after" | jq '[.[] | select(.kind == "submit") | .job] | length == (unique | length)')" true
check_eq "the events before the restart are kept as they were" \
	"$(printf '%s' "$after" | jq -c ".[:$nbefore]")" "$(printf '%s' "$before" | jq -c .)"
check_match "its log says it resumed" "$(cat "$work/front.log")" \
	"jobs known, last event [0-9]+; what changed meanwhile is recorded as seen late"
late=$(printf '%s' "$after" | jq -c "[.[$nbefore:][] | select(.late) | .job] | unique")
echo "# jobs with events recorded late after the restart: $late"
check_match "only what changed meanwhile is late: F's end (and V's start, if it came)" "$late" \
	"^\[($F|$V,$F|$F,$V)\]\$"

# 6. Ids reset (the kit restarted: its job ids start at 1 again), opt-in.
if [ "${TS08_RESET:-}" != 1 ]; then
	echo "ok $((n + 1)) - $TS ids reset # SKIP set TS08_RESET=1 (restarts the shared kit)"
	n=$((n + 1))
else
	front_stop
	scancel -u alice >/dev/null 2>&1
	scancel -u bob >/dev/null 2>&1
	# without the descriptors this script inherited (a caller's flock on
	# the kit's lock would stay held by the daemons forever)
	(
		for fd in $(ls "/proc/$BASHPID/fd"); do
			[ "$fd" -gt 2 ] && eval "exec $fd>&-"
		done
		exec bash /work/shared/slurm/start.sh --restart
	) >/dev/null 2>&1
	. "$ENV"
	ALICE_JWT=$SLURM_JWT ADMIN_JWT=$SLURM_ADMIN_JWT
	unset SLURM_JWT
	front
	N=$(sb alice -p gpu -q p1 --gres=gpu:1 -t 5 -J evNew --wrap 'sleep 600')
	for ((i = 0; i < 60; i++)); do
		grep -q "job ids were reset" "$work/front.log" && break
		sleep 0.5
	done
	check_match "reset: the log says so" "$(cat "$work/front.log")" \
		"the cluster's job ids were reset \(job $N "
	check_eq "reset: the old journal kept aside" "$(ls "$work/state" | grep -c '^gq\.db\.reset-[0-9]\{8\}T[0-9]\{6\}Z$')" 1
	wait_ev "$N" '^submit ' 30
	ev=$(via events --json)
	check_match "reset: the new journal's first event says so" \
		"$(printf '%s' "$ev" | jq -r '.[0] | "\(.kind) \(.job) \(.reason)"')" \
		"^reset 0 job ids reset; journal before: gq\.db\.reset-"
	check_eq "reset: the new job's events are its own (one submission)" \
		"$(evs "$N" | grep -c '^submit')" 1
fi
echo "# ts08: $n checks, $failed failed"
[ "$failed" = 0 ]
