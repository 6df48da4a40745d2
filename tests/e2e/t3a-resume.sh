#!/bin/bash
# t3a: the checkpoint protocol end to end with a job that behaves like
# training (tests/workload/train.sh): preempted, it saves on SIGTERM and
# reports it with gq checkpoint during its grace period, is requeued,
# restarts with GQ_RESTART_COUNT=1 and resumes at the very step it stopped;
# the record shows the save and no work lost. A job that does not save on
# SIGTERM resumes from its last periodic checkpoint: it loses less than one
# checkpoint interval of steps, and the record's work lost is its GPUs
# times the time since that checkpoint was reported.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	cooldown = 0'

# log_wait ID REGEX: a short poll until job ID's output has a matching line.
log_wait() {
	for _ in $(seq 1 200); do
		"$GQ" logs "$1" 2>/dev/null | grep -Eq "$2" && return 0
		sleep 0.05
	done
	echo "# job $1's output has no /$2/:"; "$GQ" logs "$1" | tail -5 | sed 's/^/#   /'
	return 1
}
last() { # ID REGEX: the last matching line of job ID's output
	"$GQ" logs "$1" | grep -E "$2" | tail -1
}

# Steps of 0.2 s: see the second workload below.
w=$(sub --gpus 8 --tier P2 --checkpointable -- env GQ="$GQ" TRAIN_EVERY=5 TRAIN_STEP_SECONDS=0.2 sh "$W" gqt$$)
check "the workload runs and saves its first checkpoint" log_wait "$w" '^checkpoint step 5$'
check "its report is on record" test "$(field "$w" .last_checkpoint)" != 0
clock +2m
t0=$("$GQ" clock --json | jq .now)
x=$(sub --gpus 8 --tier P0 -- $LONG)
check "a P0 preempts it" wait_state "$x" running
stop=$(last "$w" '^stop step')
check_match "on SIGTERM it saved" "$stop" '^stop step [0-9]+ saved$'
step=${stop#stop step }; step=${step% saved}
check "the saved checkpoint was reported during the grace period" test "$(events_of "$w" | grep -c 'checkpoint stopping->stopping')" = 1
"$GQ" cancel "$x" >/dev/null
check "with the P0 gone it starts again" wait_state "$w" running
check "and resumes at the step it stopped at, restart 1" log_wait "$w" "^start step $step restart 1\$"
check_eq "the record: saved at the signal, no work lost, restarted, resumed" \
	"$(api GET "/v1/preemptions?job=$w" | jq -c ".preemptions[] | [.signalled - $t0, .saved - $t0, .work_lost, .restarted > 0, .resumed]")" \
	'[0,0,0,true,true]'
"$GQ" cancel "$w" >/dev/null
check "the first workload is cancelled" wait_state "$w" cancelled

# Without a save on SIGTERM: back to the last periodic checkpoint. Steps
# of 0.2 s make a periodic save rare in the moment between the stop's
# commit and its signal, where it would count as saved in the grace period.
u=$(sub --gpus 8 --tier P2 --checkpointable -- env GQ="$GQ" TRAIN_EVERY=5 TRAIN_STEP_SECONDS=0.2 TRAIN_SAVE_ON_TERM=0 sh "$W" gqt$$)
check "the second workload checkpoints" log_wait "$u" '^checkpoint step 10$'
clock +1m
y=$(sub --gpus 8 --tier P0 -- $LONG)
check "a P0 preempts it" wait_state "$y" running
stop=$(last "$u" '^stop step')
check_match "it stopped without saving" "$stop" '^stop step [0-9]+ unsaved$'
s=${stop#stop step }; s=${s% unsaved}
saved=$(last "$u" '^checkpoint step'); saved=${saved#checkpoint step }
"$GQ" cancel "$y" >/dev/null
check "it starts again" wait_state "$u" running
check "it resumes from its last checkpoint" log_wait "$u" "^start step $saved restart 1\$"
check "it lost less than one checkpoint interval (5 steps)" test $((s - saved)) -lt 5 -a $((s - saved)) -ge 0
ck=$(api GET '/v1/events?after=0&limit=1000' | jq "[.events[] | select(.job == $u and .kind == \"checkpoint\") | .time] | max")
check_eq "work lost = 8 GPUs x (signal - last checkpoint report)" \
	"$(api GET "/v1/preemptions?job=$u" | jq -c ".preemptions[] | [.last_checkpoint == $ck, .saved, .work_lost == 8 * (.signalled - $ck), .resumed]")" \
	'[true,0,true,true]'
finish
