#!/bin/bash
# ts10-slurm-truth.sh - what gq says about a job on the real Slurm kit is
# what Slurm does (issue 30): a submission Slurm created with an error
# beside its id is a submission (exit 0, Slurm's words as a warning), and a
# job over its partition's MaxTime never starts (gq reads MaxTime as the
# queue's maxTime and says what to change), straight to slurmrestd and
# through gq serve --slurm; a refused token and slurmctld down are each
# said as what they are. Runs as root; cancels every job of alice first
# and last. Skips with one line when the kit is not running. Never in
# parallel with another Slurm script.
TS=ts10
. "$(dirname "$0")/slurm.sh"
slurm_env
work=$(mktemp -d)
chmod 1777 "$work"
front_pid=
cleanup() {
	[ -n "${ctld:-}" ] && kill -CONT "$ctld" 2>/dev/null
	[ -n "$front_pid" ] && kill "$front_pid" 2>/dev/null
	scancel -u alice >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
scancel -u alice >/dev/null 2>&1
start=$SECONDS
sub_direct() { direct submit "$@" | sed -n 's/^submitted job //p'; }
slurm_front

# 1. Partition debug has MaxTime 2h: a 3h job is created (slurmrestd
# answers its id with error 2015) and pends for ever.
for how in direct via; do
	[ "$how" = via ] && for _ in $(seq 1 50); do [ -S "$work/front.sock" ] && break; sleep 0.2; done
	out=$($how submit --gpus 1 --time-limit 3h --queue debug -- true 2>"$work/err")
	rc=$?
	check_eq "$how: a job Slurm created is submitted: exit 0" "$rc" 0
	check_match "$how: its id on stdout" "$out" '^submitted job [0-9]+$'
	J=${out#submitted job }
	check_eq "$how: Slurm has it pending" "$(squeue -h -j "$J" -o %T 2>/dev/null)" PENDING
	check_match "$how: Slurm's words, as a warning" "$(cat "$work/err")" \
		"^gq submit: warning: job $J was submitted, but Slurm: .*\(error 2015\)$"
	# gq's own reading of the partition, before and after Slurm's next
	# pass gives its reason: never "now" or "starting".
	for _ in $(seq 1 30); do
		line=$($how ls --format '{id} {eta} {reason}' | grep "^$J ")
		case $line in *"[Slurm: PartitionTimeLimit]"*) break ;; esac
		sleep 1
	done
	check_eq "$how: gq ls: never, unsatisfiable, Slurm's reason" "$line" \
		"$J never unsatisfiable [Slurm: PartitionTimeLimit]"
	check_match "$how: gq why: the partition's maximum and what to change" "$($how why "$J")" \
		"^Pending: unsatisfiable\. Its time limit 3h00m is over queue debug's maximum 2h00m: 'gq update --time-limit 2h00m' or another queue\..* Start: never: its time limit is over its queue's maximum\."
	check_eq "$how: gq eta --json: never" "$($how eta --json "$J" | jq -r '.[0].explanation.never')" unsatisfiable
done
# What gq why says to do makes Slurm start it (on the direct job).
J1=$(squeue -h -u alice -o %i | sort -n | head -1)
direct update "$J1" --time-limit 2h >/dev/null 2>&1
check_eq "gq update --time-limit 2h, as gq why says: exit 0" "$?" 0
for _ in $(seq 1 30); do
	st=$(sacct -X -n -P -j "$J1" -o State 2>/dev/null | head -1)
	case $st in COMPLETED | RUNNING) break ;; esac
	sleep 1
done
check_match "then Slurm starts it" "$st" '^(COMPLETED|RUNNING)$'

# 2. gq run prints Slurm's one output file once (stdout and stderr are one
# file by default) and ends with the job's status; through the front too,
# and one's own submission is in the front's next answer (why, logs).
for how in direct via; do
	out=$($how run --gpus 1 --time-limit 5m -- sh -c 'echo out; echo err >&2; sleep 2; exit 3' 2>"$work/err")
	rc=$?
	check_eq "$how: gq run: the job's exit status" "$rc" 3
	check_eq "$how: gq run: its output once, on stdout" "$out" "out
err"
	check_eq "$how: gq run: and on stderr only gq's line" \
		"$(grep -vcE '^gq run: job [0-9]+ failed, exit status 3$' "$work/err") $(wc -l <"$work/err")" "0 1"
done
J=$(via submit --gpus 1 --time-limit 5m -- sh -c 'echo hi; sleep 30' | sed 's/^submitted job //')
via why "$J" >/dev/null 2>&1
check_eq "via: gq why right after the submit: exit 0" "$?" 0
for _ in $(seq 1 30); do [ "$(squeue -h -j "$J" -o %T)" = RUNNING ] && break; sleep 0.5; done
for _ in $(seq 1 20); do out=$(via logs "$J" 2>&1) && [ -n "$out" ] && break; sleep 0.5; done
check_eq "via: gq logs of a job just started" "$out" hi
scancel "$J"
# gq logs streams: a 200 MB log through a few MB of memory.
J=$(sub_direct --gpus 0 --queue debug --time-limit 5m -o "$work/big.out" -- \
	sh -c 'head -c 200000000 /dev/zero | tr "\\0" x')
for _ in $(seq 1 60); do
	st=$(sacct -X -n -P -j "$J" -o State 2>/dev/null | head -1)
	[ "$st" = COMPLETED ] && break
	sleep 1
done
(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
	GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
	XDG_CACHE_HOME="$work/cache-direct" PATH=/usr/bin:/bin LC_ALL=C \
	/usr/bin/time -f %M -o "$work/rss" "$GQ" logs "$J" | wc -c >"$work/bytes")
check_eq "gq logs of a 200 MB log: every byte" "$(cat "$work/bytes")" 200000000
rss=$(tail -1 "$work/rss")
[ "${rss:-x}" -lt 40000 ] 2>/dev/null
t_report $? "... in under 40 MB of memory: ${rss:-?} KB"

# A dependency and --begin together: not before the begin time (Slurm
# shows the reason Dependency and the begin only as eligible_time).
A=$(sub_direct --gpus 1 --time-limit 5m -- sleep 60)
B=$(sub_direct --gpus 1 --time-limit 5m --after "$A" --begin now+40m -- true)
sleep 1
elig=$(scontrol show job "$B" | tr ' ' '\n' | sed -n 's/^EligibleTime=//p')
check_eq "--after and --begin: gq's start is the begin time, as Slurm's" \
	"$(direct eta --json "$B" | jq -r '.[0].predicted_start | todate' | cut -c1-16)" \
	"$(date -u -d "$elig" +%Y-%m-%dT%H:%M)"
check_match "... gq why says both" "$(direct why "$B")" "^Pending: dependency; also begin\."
scancel "$A" "$B"

# Ahead means ahead for the same resources: a CPU-only job waiting in
# another partition (for its begin time) is not ahead of a GPU job.
F1=$(sub_direct --gpus 4 --time-limit 5m -- sleep 120)
F2=$(sub_direct --gpus 4 --time-limit 5m -- sleep 120)
C=$(sub_direct --gpus 0 --queue debug --tier P0 --begin now+10m --time-limit 5m -- true)
G=$(sub_direct --gpus 1 --time-limit 5m -- true)
for _ in $(seq 1 30); do
	[ "$(squeue -h -j "$F1,$F2" -o %T | sort -u)" = RUNNING ] && break
	sleep 0.5
done
w=$(direct why --json "$G")
check_eq "a GPU job behind a waiting CPU-only job: none ahead" \
	"$(printf '%s' "$w" | jq -c '[.explanation.ahead, (.explanation.items | map(.reason) | index("priority"))]')" "[0,null]"
check_match "... gq why names no job ahead" "$(direct why "$G")" "None ahead"
scancel "$F1" "$F2" "$C" "$G"

# A job that never ran is never said to have started: held then
# cancelled, in the front's journal and straight from Slurm (sacct:
# Start=None).
H=$(runuser -u alice -- env -u SLURM_JWT sbatch --parsable -H -p gpu -t 5 -o /dev/null --wrap true)
sleep 2
scancel "$H"
for _ in $(seq 1 30); do
	evs=$(via events --job "$H" --json 2>/dev/null | jq -r '.[] | select(.kind == "state") | "\(.from)>\(.to) \(.reason)"')
	[ -n "$evs" ] && break
	sleep 0.5
done
check_eq "held then cancelled: the front journals no start" "$evs" "pending>cancelled cancelled"
check_eq "... and gq show says it never started" "$(direct show --json "$H" | jq -c '[.state, (.start_time // 0)]')" '["cancelled",0]'

# History for everyone: bob's completed runs of a name set the expected
# runtime of his running and waiting jobs of that name in alice's direct
# view too (not their 10-minute limit).
for _ in 1 2; do
	runuser -u bob -- env -u SLURM_JWT sbatch -Q -W -p gpu --gres=gpu:1 -t 10 -J ts10h -o /dev/null --wrap 'sleep 3'
done
for _ in $(seq 1 60); do
	[ "$(sacct -X -n -P -u bob --name ts10h -s CD -o JobID 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 1
done
R=$(runuser -u bob -- env -u SLURM_JWT sbatch --parsable -p gpu --gres=gpu:1 -t 10 -J ts10h -o /dev/null --wrap 'sleep 60')
P=$(runuser -u bob -- env -u SLURM_JWT sbatch --parsable -p gpu --gres=gpu:1 -t 10 -J ts10h --begin=now+5minutes -o /dev/null --wrap 'sleep 60')
for _ in $(seq 1 30); do [ "$(squeue -h -j "$R" -o %T)" = RUNNING ] && break; sleep 0.5; done
eta=$(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
	GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
	XDG_CACHE_HOME="$work/cache-hist" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" eta --json "$P")
check_eq "bob's waiting job: expected to run as his past runs did (3 s), not 10 min" \
	"$(printf '%s' "$eta" | jq '(.[0].predicted_end - .[0].predicted_start) < 60')" true
show=$(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
	GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
	XDG_CACHE_HOME="$work/cache-hist" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" ls --all --json)
check_eq "... and his running one, in alice's view" \
	"$(printf '%s' "$show" | jq ".[] | select(.id == $R) | (.predicted_end - .start_time) < 60")" true
scancel "$R" "$P"

# 3. A token Slurm refuses, said as it is (exit 4), and slurmctld down
# said as that (exit 5), whether the API version is cached or not.
tok() { # TOKEN CACHE gq-args...: gq as alice with TOKEN
	local t=$1 c=$2
	shift 2
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$t" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache-$c" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@" 2>&1)
}
expired=$(scontrol token username=alice lifespan=1 | sed 's/^SLURM_JWT=//')
sleep 2
for c in cached fresh; do
	[ "$c" = cached ] && tok "$ALICE_JWT" cached ls >/dev/null
	out=$(tok "$expired" "$c" ls)
	check_eq "$c: an expired token: exit 4" "$?" 4
	check_match "$c: ... says when it expired" "$out" \
		"^gq: the Slurm token expired at [0-9-]+ [0-9:]+; get a new one with 'scontrol token' and set SLURM_JWT"
	out=$(tok garbage "$c" ls)
	check_eq "$c: a token that is none: exit 4" "$?" 4
	check_match "$c: ... says so" "$out" "^gq: the token gq was given is not a Slurm token"
	out=$(tok "$BOB_JWT" "$c" ls)
	check_eq "$c: bob's token as alice: exit 4" "$?" 4
	check_match "$c: ... says whose it is" "$out" "^gq: the Slurm token is bob's, and gq asks as alice"
	out=$(tok "${ALICE_JWT}x" "$c" ls)
	check_eq "$c: a token whose signature Slurm refuses: exit 4" "$?" 4
	check_match "$c: ... says so" "$out" "^gq: Slurm refused the token \(slurmdbd refuses it too\)"
	[ "$c" = cached ] && tok "$ALICE_JWT" cached ls >/dev/null
done
# slurmctld stopped (SIGSTOP: slurmrestd's requests to it time out).
ctld=$(cat "${SLURM_TEST_DIR:-/tmp/slurm-test}/run/slurmctld.pid" 2>/dev/null)
if [ -n "$ctld" ] && kill -STOP "$ctld" 2>/dev/null; then
	out=$(tok "$ALICE_JWT" cached ls)
	rc=$?
	kill -CONT "$ctld"
	check_eq "slurmctld down, a good token: exit 5" "$rc" 5
	check_match "... says slurmctld, not the token" "$out" \
		"^gq: slurmctld does not answer .* though the token is good \(slurmdbd accepts it\)"
fi
echo "# ts10: $((SECONDS - start))s"
echo "1..$n"
[ "$failed" = 0 ]
