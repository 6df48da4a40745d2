#!/bin/sh
# train.sh - a training job in miniature, for tests and as an example of
# the checkpoint protocol of gq (gq-checkpoint(1)): it counts steps, saves
# its step to $GQ_CHECKPOINT_DIR every N steps and when it is asked to stop
# (SIGTERM, the preemption signal), reports each save with `gq checkpoint`
# (which reads GQ_JOB_ID), and on start resumes from the last save.
#
# It is not a benchmark and computes nothing; one "step" is a short sleep.
# Every line it prints is meant to be read by tests:
#   start step S restart R      (S = 0 on a fresh start)
#   checkpoint step S
#   stop step S saved|unsaved   (on SIGTERM)
#   done step S
#
# Environment (all optional):
#   GQ_CHECKPOINT_DIR      where the checkpoint lives (default ./checkpoint)
#   GQ_RESTART_COUNT       printed on start
#   TRAIN_STEPS            steps in all, then exit 0 (default 1000000)
#   TRAIN_EVERY            checkpoint every this many steps (default 10)
#   TRAIN_STEP_SECONDS     duration of a step (default 0.1)
#   TRAIN_SAVE_ON_TERM     1 (default): save on SIGTERM; 0: exit without
#                          saving, losing the steps since the last save
#   GQ                     the gq binary (default: gq on PATH)
set -u
dir=${GQ_CHECKPOINT_DIR:-./checkpoint}
steps=${TRAIN_STEPS:-1000000}
every=${TRAIN_EVERY:-10}
pause=${TRAIN_STEP_SECONDS:-0.1}
save_on_term=${TRAIN_SAVE_ON_TERM:-1}
gq=${GQ:-gq}
mkdir -p "$dir" || exit 1

step=0
[ -f "$dir/step" ] && step=$(cat "$dir/step")
echo "start step $step restart ${GQ_RESTART_COUNT:-0}"

# Written to a temporary file and renamed, so that a kill in the middle
# never leaves a half-written checkpoint behind.
save() {
	echo "$step" >"$dir/step.tmp" && mv "$dir/step.tmp" "$dir/step" || exit 1
	if [ -n "${GQ_JOB_ID:-}" ]; then
		"$gq" checkpoint >/dev/null || echo "gq checkpoint failed" >&2
	fi
}

stopping=0
trap 'stopping=1' TERM
while [ "$step" -lt "$steps" ]; do
	sleep "$pause"
	# A SIGTERM cuts the sleep short; the step it interrupted is not done.
	if [ "$stopping" = 1 ]; then
		break
	fi
	step=$((step + 1))
	if [ $((step % every)) = 0 ]; then
		save
		echo "checkpoint step $step"
	fi
done
if [ "$stopping" = 1 ]; then
	if [ "$save_on_term" = 1 ]; then
		save
		echo "stop step $step saved"
	else
		echo "stop step $step unsaved"
	fi
	exit 0
fi
echo "done step $step"
