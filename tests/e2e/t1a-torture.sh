#!/bin/bash
# t1a: a short crash torture (tests/torture/torture.py; `make torture` is
# the full run): 4 iterations of kill -9 of gq serve under the load of 8
# clients, jobs ending, preemptions and a moving clock, a restart each
# time; every count must be 0. Then each check is shown a fault injected
# into its input and must report it. TORTURE_SEED=N replays a run.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { t_report 1 "python3 is installed (make deps)"; finish; }

seed=${TORTURE_SEED:-$(( $(date +%s) % 100000 + 1 ))}
python3 "$T_SRC/../torture/torture.py" --gq "$GQ" --iterations "${TORTURE_ITERATIONS:-4}" \
	--seed "$seed" --self-test >"$T_DIR/out" 2>&1
rc=$?
sed 's/^/# /' "$T_DIR/out" | grep -v '^# count \|^# ok self-test\|^# not ok self-test'
for c in lost duplicated started_twice gpu_overlap restart_failed failed_unrun server_died nonfinite \
	log_alarms events_lost; do
	check_eq "seed $seed: $c" "$(sed -n "s/^count $c //p" "$T_DIR/out")" 0
done
n=$(grep -c '^ok self-test' "$T_DIR/out")
bad=$(grep '^not ok self-test' "$T_DIR/out")
check_eq "every check reports an injected fault ($n injections)" "$bad" ""
check_match "the self-test ran" "$n" '^[1-9][0-9]*$'
check_eq "torture exit status" "$rc" 0
finish
