#!/bin/bash
# ts01-slurm.sh - the real gq binary against the real Slurm kit
# (shared/slurm/start.sh: slurmctld, slurmdbd, three slurmd, slurmrestd with
# JWT): MAPPING.md's ten acceptance checks, where each is: 1 the token
# (section 1; the fixtures and every error fixture's exit code are
# tests/unit/slurmwire.c's), 2 ids of ls and ls --all against squeue's
# (7), 3 states and exits (2, and the TIMEOUT before 12), 4 nodes and GPU
# indexes (6), 5 show (5), 6 why beside Slurm's reasons (7, 10), 7
# permissions (8), 8 submit (3), 9 eta (9), 10 top (11). Runs as
# root (it acts as alice and bob through runuser, and drains a node with
# scontrol); cancels every job of alice and bob first and last. Skips with
# one line when the kit is not running. Run by `make check-slurm`, never in
# parallel with another Slurm script: they share the cluster.
TS=ts01
. "$(dirname "$0")/slurm.sh"
slurm_env
work=$(mktemp -d)
chmod 1777 "$work"
mkdir -p "$work/out" && chmod 1777 "$work/out"
cleanup() {
	scancel -u alice >/dev/null 2>&1
	scancel -u bob >/dev/null 2>&1
	scontrol update nodename=cpu1 state=resume >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
cleanup_jobs() { scancel -u alice; scancel -u bob; sleep 1; }
# as USER CMD...: runs CMD as alice or bob with the backend set, in $work.
as() {
	local u=$1 tok=$ALICE_JWT
	shift
	[ "$u" = bob ] && tok=$BOB_JWT
	(cd "$work" && runuser -u "$u" -- env -i SLURM_JWT="$tok" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache-$u" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$@")
}
sub() { # USER gq-submit-args... -> job id
	as "$@" | sed -n 's/^submitted job //p'
}
jobf() { # ID FORMAT -> squeue field
	squeue -h -j "$1" -o "$2" 2>/dev/null
}
wait_state() { # ID STATE TIMEOUT
	local i
	for ((i = 0; i < $3 * 2; i++)); do
		[ "$(scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')" = "$2" ] && return 0
		sleep 0.5
	done
	return 1
}
wait_reason() { # ID REASON TIMEOUT
	local i
	for ((i = 0; i < $3 * 2; i++)); do
		[ "$(jobf "$1" %r)" = "$2" ] && return 0
		sleep 0.5
	done
	return 1
}
scancel -u alice >/dev/null 2>&1
scancel -u bob >/dev/null 2>&1
scontrol update nodename=cpu1 state=resume >/dev/null 2>&1
sleep 1
start=$SECONDS

# 1. The token: a refused one exits 4 and says so.
out=$(cd "$work" && runuser -u alice -- env -i SLURM_JWT=not-a-token GQ_BACKEND=slurm \
	GQ_SERVER="$SLURM_URL" HOME="$work" PATH=/usr/bin:/bin "$GQ" ls 2>&1)
rc=$?
check_eq "refused token: exit 4" "$rc" 4
check_match "refused token: the message says token" "$out" "token"
out=$(as alice "$GQ" version 2>&1)
check_match "version names Slurm and the API version" "$out" "Slurm 22\.05\.8 .*openapi v0\.0\.38"

# 2. States and exits.
J_OK=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 5m --name ok -- true)
J_FAIL=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 5m --name fail -- sh -c 'exit 3')
J_SIG=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 5m --name sig -- sh -c 'kill -TERM $$')
J_CAN=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 5m --hold --name can -- true)
# Slurm's shortest limit is a minute: looked at before section 12, which
# cancels every job of alice's.
J_TO=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 1m --name to -- sleep 600)
check_match "submit answers job ids" "$J_OK $J_FAIL $J_SIG $J_CAN" '^[0-9]+ [0-9]+ [0-9]+ [0-9]+$'
as alice "$GQ" cancel "$J_CAN" >/dev/null
wait_state "$J_OK" COMPLETED 20
wait_state "$J_FAIL" FAILED 20
wait_state "$J_SIG" FAILED 20
out=$(as alice "$GQ" show "$J_OK")
check_match "completed job: state and exit 0" "$out" "state +completed \(exit status 0\)"
out=$(as alice "$GQ" show "$J_FAIL")
check_match "failed job: exit 3" "$out" "state +failed \(exit status 3\)"
out=$(as alice "$GQ" show "$J_SIG")
check_match "signalled job: 128+SIGTERM" "$out" "state +failed \(exit status 143\)"
out=$(as alice "$GQ" show "$J_CAN")
check_match "cancelled job" "$out" "state +cancelled"

# 3. Submit maps onto Slurm's fields (check 8).
cat >"$work/env.sh" <<'EOF'
#!/bin/sh
echo "PATH=$PATH"
echo "PWD=$(pwd)"
sleep 600
EOF
chmod 755 "$work/env.sh"
J_SUB=$(sub alice "$GQ" submit --gpus 2 --gpu-type a100 --tier P2 --queue gpu --time-limit 1h \
	--name accept8 -- "$work/env.sh")
check_eq "submit: QOS p2 gres gpu:a100:2 partition gpu limit 1:00:00" \
	"$(jobf "$J_SUB" '%q %b %P %l %j')" "p2 gres:gpu:a100:2 gpu 1:00:00 accept8"
check_eq "submit: the working directory is the caller's" "$(jobf "$J_SUB" '%Z')" "$work"
wait_state "$J_SUB" RUNNING 20
sleep 1
check_match "submit: the job sees the caller's PATH" "$(cat "$work/slurm-$J_SUB.out" 2>/dev/null)" \
	"^PATH=/usr/bin:/bin"
check_match "logs: gq logs reads the job's output file" "$(as alice "$GQ" logs "$J_SUB" 2>&1)" \
	"^PWD=$work"
out=$(as alice "$GQ" submit --gpus 9 --gpu-type a100 --time-limit 1h -- true 2>&1)
rc=$?
check_eq "9 a100 GPUs: exit 2" "$rc" 2
check_match "9 a100 GPUs: says why, in Slurm's words" "$out" \
	"no node .* can ever hold .*Requested node configuration is not available"

# 4. A batch script's #SBATCH lines are honoured (existing sbatch scripts work).
cat >"$work/job.sbatch" <<'EOF'
#!/bin/bash
#SBATCH --job-name=from-sbatch
#SBATCH -t 30
#SBATCH --gres=gpu:h100:1
#SBATCH --qos=p1
#SBATCH --output=out/%x-%j.log
echo "hello from $SLURM_JOB_ID"
sleep 600
EOF
J_SB=$(sub alice "$GQ" submit "$work/job.sbatch")
check_eq "#SBATCH: name, limit, gres, QOS" "$(jobf "$J_SB" '%j %l %b %q')" \
	"from-sbatch 30:00 gres:gpu:h100:1 p1"
wait_state "$J_SB" RUNNING 20 || echo "# $J_SB: $(jobf "$J_SB" '%T %r')"

# 5. show of a running 2 x a100 job (check 5).
out=$(as alice "$GQ" show "$J_SUB")
idx=$(scontrol show job -d "$J_SUB" | sed -n 's/.*GRES=gpu:a100:2(IDX:\([0-9,-]*\)).*/\1/p' | head -1)
gq_idx=$(printf '%s\n' "$out" | sed -n 's/^gpus *gpu1 GPUs //p')
want_idx=$(echo "$idx" | awk -F- '{ if (NF == 2) { s = $1; for (i = $1 + 1; i <= $2; i++) s = s "," i; print s } else print $0 }')
check_eq "show: node gpu1 and the GPU indexes Slurm gave" "$gq_idx" "$want_idx"
check_match "show: limit, queue gpu, dept proj_a, tier P2" "$out" \
	"queue +gpu \(department proj_a\).*"
check_match "show: tier P2" "$out" "tier +P2"
check_match "show: time limit 1h" "$out" "time limit +1h00m"
check_match "show: the output path expanded" "$out" "output +$work/slurm-$J_SUB\.out"

# 6. nodes (check 4): models, counts, busy GPUs as gres_used, a drained node.
scontrol update nodename=cpu1 state=drain reason=ts01 >/dev/null
w1=$(sinfo -h -n cpu1 -o %T | head -1)
out=$(as alice "$GQ" nodes)
check_match "nodes: gpu1 a100 x4" "$out" "gpu1 +a100 +[^ ]+ +4 "
check_match "nodes: gpu2 h100 x4" "$out" "gpu2 +h100 +[^ ]+ +4 "
# As sinfo says it (asked before and after: a job may end between):
# drained, or draining while a job still runs there.
w2=$(sinfo -h -n cpu1 -o %T | head -1)
check_match "nodes: cpu1 without GPUs, $w1 or $w2 as sinfo says" "$out" "cpu1 .*\(($w1|$w2)\)"
used=$(scontrol -d show node gpu1 | sed -n 's/.*GresUsed=gpu:a100:\([0-9]*\).*/\1/p')
busy=$(printf '%s\n' "$out" | awk '$1 == "gpu1" { print $5 }')
check_eq "nodes: gpu1 busy GPUs equal GresUsed" "$busy" "$used"
if command -v jq >/dev/null; then
	# Which GPUs, not only how many: gres_used's IDX (check 4).
	idx=$(scontrol -d show node gpu1 | sed -n 's/.*GresUsed=gpu:a100:[0-9]*(IDX:\([^)]*\)).*/\1/p' |
		awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); lo = r[1]; hi = n == 2 ? r[2] : r[1]; for (k = lo; k <= hi; k++) s = s (s == "" ? "" : ",") k } print s }')
	check_eq "nodes --json: gpu1's busy GPU indexes equal GresUsed's IDX" \
		"$(as alice "$GQ" nodes --json | jq -r '.[] | select(.name == "gpu1") | .busy_gpus | map(tostring) | join(",")')" \
		"$idx"
fi
scontrol update nodename=cpu1 state=resume >/dev/null

# 7. Reasons beside Slurm's (check 6).
# alice's p2 holds 2 GPUs (J_SUB): one more p2 GPU is over QOSMaxGRESPerUser.
J_QUOTA=$(sub alice "$GQ" submit --gpus 1 --tier P2 --time-limit 1h --name quota -- sleep 600)
# bob's 4 h100 wait for alice's #SBATCH job (h100:1): Resources; alice's
# 4 a100 wait for accept8 (a100:2). P1 both: p0 would preempt p2.
J_BIG=$(sub bob "$GQ" submit --gpus 4 --gpu-type h100 --time-limit 2h --name big -- sleep 600)
J_PRIO=$(sub alice "$GQ" submit --gpus 4 --gpu-type a100 --time-limit 1h --name prio -- sleep 600)
J_HELD=$(sub alice "$GQ" submit --gpus 1 --hold --time-limit 1h --name held -- sleep 600)
J_DEP=$(sub bob "$GQ" submit --gpus 1 --after "$J_SUB" --time-limit 1h --name dep -- sleep 600)
printf '#!/bin/sh\n#SBATCH --begin=now+2hours\n#SBATCH -t 10\ntrue\n' >"$work/later.sh"
J_BEGIN=$(sub alice "$GQ" submit --gpus 0 --queue debug "$work/later.sh")
wait_reason "$J_QUOTA" QOSMaxGRESPerUser 20
wait_reason "$J_BEGIN" BeginTime 20
wait_reason "$J_PRIO" Priority 20 || wait_reason "$J_PRIO" Resources 5
wait_reason "$J_BIG" Resources 20 || wait_reason "$J_BIG" Priority 5
out=$(as alice "$GQ" why "$J_QUOTA")
check_match "why: QOSMaxGRESPerUser shown, as user_limit" "$out" \
	"Slurm: QOSMaxGRESPerUser \(gq's word: user_limit\)"
# gq cannot read the limit's numbers: the job starts at the earliest when
# one of alice's running jobs ends (later when the jobs ahead take the GPUs
# then), never "Starts now" beside free GPUs.
check_match "why: a Slurm limit is gq's reason too" "$out" \
	"^Pending: user_limit(; also [a-z_]+)?\. Slurm holds it by QOSMaxGRESPerUser, a limit of user alice whose numbers gq does not read\."
if printf '%s' "$out" | grep -Eq 'Starts now|gq and Slurm disagree'; then
	t_report 1 "why: no 'Starts now' for a job Slurm holds by a limit"
else t_report 0 "why: no 'Starts now' for a job Slurm holds by a limit"; fi
out=$(as alice "$GQ" why "$J_BIG")
check_match "why: Slurm's Resources or Priority beside gq's" "$out" \
	"Slurm: (Resources|Priority) \(gq's word: (resources|priority)\); priority [0-9]+"
# The order is Slurm's priority: why says that number and where its factors
# are, never gq's weight formula, and that the prediction keeps the order.
check_match "why: the job's Slurm priority (squeue %Q) and where its factors are" "$out" \
	"its Slurm priority $(jobf "$J_BIG" %Q) \(its factors: sprio -j $J_BIG\)"
if printf '%s' "$out" | grep -Eq 'weight [0-9.]+ = |held back for P0'; then
	t_report 1 "why: no gq weight formula, no headroom on Slurm"
else t_report 0 "why: no gq weight formula, no headroom on Slurm"; fi
check_match "why: the prediction keeps Slurm's current order" "$out" \
	"keeps Slurm's current order \(no simulated aging\)"
if printf '%s' "$out" | grep -q '^Preemption:' &&
	! printf '%s' "$out" | grep -q "^Preemption: Slurm's own, by QOS"; then
	t_report 1 "why: preemption is Slurm's, not gq's plan"
else t_report 0 "why: preemption is Slurm's, not gq's plan"; fi
out=$(as alice "$GQ" why "$J_PRIO")
check_match "why: the jobs ahead with their Slurm priority" "$out" \
	"jobs? ahead \((P[0-2] #[0-9]+ priority [0-9]+(, )?)+"
out=$(as alice "$GQ" why "$J_HELD")
check_match "why: held, and Slurm's JobHeldUser" "$out" "^Pending: held.*"
check_match "why: JobHeldUser beside" "$out" "Slurm: JobHeldUser \(gq's word: held\)"
out=$(as bob "$GQ" why "$J_DEP")
check_match "why: dependency on the running job" "$out" "^Pending: dependency"
check_match "why: Slurm's Dependency beside" "$out" "Slurm: Dependency \(gq's word: dependency\)"
if command -v jq >/dev/null; then
	# Until the end of the job it waits for, at the latest (check 6).
	until=$(as bob "$GQ" why --json "$J_DEP" | jq '[.explanation.items[] | select(.reason == "dependency") | .until][0]')
	dend=$(as alice "$GQ" ls --json | jq --argjson id "$J_SUB" '.[] | select(.id == $id) | .predicted_end')
	if [ "${until:-null}" != null ] && [ "${dend:-null}" != null ] && [ "$until" -le "$dend" ] && [ "$until" -gt 0 ]; then
		t_report 0 "why: the dependency waits until the end of the job it names"
	else t_report 1 "why: the dependency waits until the end of the job it names (until $until, end $dend)"; fi
fi
out=$(as alice "$GQ" why "$J_BEGIN")
check_match "why: BeginTime, the user's own start time (not a cooldown)" "$out" \
	"Slurm: BeginTime \(gq's word: begin\)"
out=$(as alice "$GQ" ls)
ids=$(printf '%s\n' "$out" | awk 'NR > 1 { print $1 }' | sort -n | tr '\n' ' ')
want=$(squeue -h -o %A | sort -n | tr '\n' ' ')
check_eq "ls: ids equal squeue's (check 2)" "$ids" "$want"
# --all: every job squeue -t all knows, finished ones too, in the same state
# (by squeue's %i: an array that waits is one row, 42_[0-3%2], in both).
# A job may change state between the two reads (one ends, one starts): a
# difference is read again, up to three times; a real one stays.
for _ in 1 2 3; do
	all_gq=$(as alice "$GQ" ls --all | awk 'NR > 1 { print $1, $6 }' | sort)
	all_sq=$(squeue -h -t all -o '%i %T' | awk '{ s = tolower($2)
		if (s == "requeued") s = "pending"; else if (s == "suspended") s = "running"
		else if (s == "completing") s = "stopping"; else if (s == "configuring") s = "starting"
		else if (s == "deadline") s = "timeout"
		else if (s == "node_fail" || s == "out_of_memory" || s == "boot_fail") s = "failed"
		print $1, s }' | sort)
	missing=$(comm -13 <(printf '%s\n' "$all_gq") <(printf '%s\n' "$all_sq") | tr '\n' ' ')
	[ -z "$missing" ] && break
	echo "# ls --all differs from squeue -t all in: $missing"
	sleep 1
done
check_eq "ls --all: every id and state of squeue -t all (check 2)" "$missing" ""
order=$(printf '%s\n' "$out" | awk '$6 == "pending" { print $1 }' | tr '\n' ' ')
sorder=$(squeue -h -t PD -o '%Q %V %A' | sort -k1,1nr -k2,2 -k3,3n | awk '{ print $3 }' | tr '\n' ' ')
check_eq "ls: pending jobs in Slurm's priority order" "$order" "$sorder"
check_match "ls: Slurm's reason in the REASON column" "$out" "\[Slurm: QOSMaxGRESPerUser\]"
if command -v jq >/dev/null; then
	out=$(as alice "$GQ" ls --json | jq -c --argjson id "$J_QUOTA" \
		'.[] | select(.id == $id) | .slurm | [.reason, .reason_class, .partition, .qos, .account]')
	check_eq "ls --json: Slurm's reason, partition, QOS, account" "$out" \
		'["QOSMaxGRESPerUser","user_limit","gpu","p2","proj_a"]'
	out=$(as alice "$GQ" why --json "$J_BIG" | jq '.slurm.priority')
	check_eq "why --json: Slurm's priority (squeue %Q)" "$out" "$(jobf "$J_BIG" %Q)"
	out=$(as alice "$GQ" why --json "$J_BIG" | jq -c '.explanation.weight | [.value, .base, .source]')
	check_eq "why --json: the weight is Slurm's priority, no gq base" "$out" \
		"[$(jobf "$J_BIG" %Q),null,\"slurm\"]"
	out=$(as alice "$GQ" show --json "$J_QUOTA" | jq -c '.slurm | [.qos, .account, .partition]')
	check_eq "show --json: Slurm's QOS, account, partition" "$out" '["p2","proj_a","gpu"]'
fi

# 8. Permissions (check 7): an operator's hold cannot be released by the user.
scontrol hold "$J_QUOTA" >/dev/null
out=$(as alice "$GQ" release "$J_QUOTA" 2>&1)
rc=$?
check_eq "release of an admin-held job as its user: exit 4" "$rc" 4
check_match "release of an admin-held job: Slurm's words" "$out" "Slurm:"
out=$(as alice "$GQ" cancel "$J_BIG" 2>&1)
check_eq "cancel of another user's job: exit 4" "$?" 4
out=$(as alice "$GQ" show 999999 2>&1)
check_eq "show of an unknown job: exit 3" "$?" 3
as alice "$GQ" release "$J_HELD" >/dev/null
check_eq "release of one's own hold" "$?" 0
as alice "$GQ" hold "$J_HELD" >/dev/null
check_eq "hold of one's own job" "$(jobf "$J_HELD" %r)" "JobHeldUser"
as alice "$GQ" prio --reason ts01 "$J_PRIO" P0 >/dev/null
check_eq "prio moves the QOS (tier P0 = p0)" "$(jobf "$J_PRIO" %q)" "p0"
out=$(as alice "$GQ" requeue "$J_SUB" 2>&1)
check_match "requeue says the API has none" "$out" "cannot requeue"

# 9. eta: every pending job predicted, Slurm's estimate beside (check 9).
out=$(as alice "$GQ" eta)
npend=$(squeue -h -t PD -o %A | wc -l)
nrows=$(printf '%s\n' "$out" | awk 'NR > 1' | wc -l)
check_eq "eta: a row for every pending job" "$nrows" "$npend"
nslurm=$(printf '%s\n' "$out" | grep -c "Slurm: ")
check_eq "eta: Slurm's estimate (or none) beside each" "$nslurm" "$npend"
check_match "eta: gq predicts a start for jobs Slurm has none for" "$out" \
	"^ *$J_DEP .*(Dec|Jan|[0-9]:[0-9]).*Slurm: no estimate"
if command -v jq >/dev/null; then
	# Positions are Slurm's priority order across tiers (squeue's), held
	# and dependent jobs included: the P0 (J_PRIO) is not put first.
	pos=$(as alice "$GQ" eta --json | jq -r 'sort_by(.position) | .[].id' | tr '\n' ' ')
	sorder=$(squeue -h -t PD -o '%Q %V %A' | sort -k1,1nr -k2,2 -k3,3n | awk '{ print $3 }' | tr '\n' ' ')
	check_eq "eta: positions in Slurm's priority order" "$pos" "$sorder"
fi

# 10. A requeued job's cooldown (check 6): bob's P0 on a100 preempts
# alice's p2 accept8 (PreemptMode=REQUEUE), which waits with BeginTime.
scancel "$J_PRIO" >/dev/null 2>&1
J_URG=$(sub bob "$GQ" submit --gpus 4 --gpu-type a100 --tier P0 --time-limit 30m --name urgent -- sleep 600)
wait_reason "$J_SUB" BeginTime 30
out=$(as alice "$GQ" why "$J_SUB")
check_match "why: the preempted job is in cooldown" "$out" "^Pending: cooldown"
check_match "why: Slurm's BeginTime after a requeue is a cooldown" "$out" \
	"Slurm: BeginTime \(gq's word: cooldown\)"
out=$(as alice "$GQ" show "$J_SUB")
check_match "show: the requeued job's cooldown until a time" "$out" "cooldown +until "
check_match "urgent P0 runs" "$(jobf "$J_URG" %T)" "RUNNING|PENDING"

# 11. gq top on Slurm (check 10): online, little CPU, at most one job query
# to slurmctld per refresh (GET /diag's REQUEST_JOB_INFO count).
diag_jobq() {
	curl -s -H "X-SLURM-USER-NAME: alice" -H "X-SLURM-USER-TOKEN: $ALICE_JWT" \
		"$SLURM_URL/slurm/$SLURM_API_VERSION/diag" |
		jq '[.statistics.rpcs_by_message_type[] | select(.message_type == "REQUEST_JOB_INFO") | .count][0] // 0'
}
if command -v tmux >/dev/null && command -v jq >/dev/null; then
	sock="$work/tmux.sock"
	q0=$(diag_jobq)
	tmux -S "$sock" new-session -d -x 160 -y 40 "cd $work && runuser -u alice -- env -i \
		SLURM_JWT=$ALICE_JWT GQ_BACKEND=slurm GQ_SERVER=$SLURM_URL HOME=$work TERM=xterm \
		PATH=/usr/bin:/bin TZ=UTC $GQ top --interval 2 --no-mouse"
	chmod 777 "$sock" 2>/dev/null
	t0=$SECONDS
	sleep 12
	q1=$(diag_jobq)
	el=$((SECONDS - t0))
	screen=$(tmux -S "$sock" capture-pane -p)
	qprio=$(jobf "$J_DEP" %Q)
	pid=$(pgrep -u alice -f " top --interval 2 --no-mouse" | head -1) # GQ may be named otherwise
	cpu=$(ps -o times= -p "$pid" 2>/dev/null | tr -d ' ')
	tmux -S "$sock" kill-server 2>/dev/null
	check_match "top: online on Slurm, the queue shown" "$screen" "Queue"
	check_match "top: WEIGHT is Slurm's priority" "$screen" "^ *[0-9]+ +$J_DEP .* $qprio "
	echo "# top: $((q1 - q0)) job queries in ${el}s at --interval 2, ${cpu:-?}s CPU"
	if [ $((q1 - q0)) -le $((el / 2 + 1)) ] && [ $((q1 - q0)) -ge 1 ]; then t_report 0 "top: at most one job query per refresh"; else t_report 1 "top: at most one job query per refresh ($((q1 - q0)) in ${el}s)"; fi
	if [ "${cpu:-99}" -le 1 ]; then t_report 0 "top: low CPU"; else t_report 1 "top: low CPU (${cpu}s in ${el}s)"; fi
else
	echo "ok $((n + 1)) - ts01 top # SKIP no tmux or jq"
	n=$((n + 1))
fi

# A job past its time limit (check 3): TIMEOUT, gq's timeout.
wait_state "$J_TO" TIMEOUT 90
out=$(as alice "$GQ" show "$J_TO")
check_match "timed-out job: state timeout" "$out" "state +timeout"

# gq history from slurmdbd (sacct's records): the jobs of section 2 once
# slurmdbd has them (its agent writes within seconds).
hist() { as alice "$GQ" history --since now-1h "$@" 2>&1; }
for ((i = 0; i < 60; i++)); do
	hist --csv | grep -q "^$J_TO," && break
	sleep 0.5
done
out=$(hist --csv)
check_match "history: the completed job, exit 0" "$out" "^$J_OK,ok,alice,debug,[^,]*,P1,completed,0,"
check_match "history: the signalled one, 128+SIGTERM" "$out" "^$J_SIG,sig,alice,debug,[^,]*,P1,failed,143,"
check_match "history: a failed job's code slurmdbd's REST does not give: empty, not 0" "$out" \
	"^$J_FAIL,fail,alice,debug,[^,]*,P1,failed,,"
check_match "history: the cancelled one, never started" "$out" "^$J_CAN,can,alice,debug,[^,]*,P1,cancelled,,[0-9]+,,"
check_match "history: the timed-out one" "$out" "^$J_TO,to,alice,debug,[^,]*,P1,timeout,"
check_eq "history: the ids are sacct's" "$(printf '%s\n' "$out" | cut -d, -f1 | grep -xE "$J_OK|$J_FAIL|$J_SIG|$J_CAN|$J_TO" | tr '\n' ' ')" \
	"$(sacct -X -n -P -u alice -j "$J_OK,$J_FAIL,$J_SIG,$J_CAN,$J_TO" -o JobID | sort -n | tr '\n' ' ')"
# accept8, preempted by section 10's urgent job and requeued: slurmdbd keeps
# its first run, PREEMPTED, but the job is pending again, not history.
check_eq "history: a preempted, requeued job is not history (sacct has its run PREEMPTED)" \
	"$(sacct -X -D -n -P -j "$J_SUB" -o State | grep -c PREEMPTED) $(printf '%s\n' "$out" | grep -c "^$J_SUB,")" "1 0"
check_match "history --state failed: the failed only" "$(hist --state failed --format '{id} {state}' | tr '\n' ' ')" \
	"^([0-9]+ failed )+$"
check_match "history: CHARGED is Slurm's, not gq's: '-'" "$(hist | grep "^$J_OK ")" " - *$"
check_match "history --json: charged null" "$(hist --json | jq -c ".[] | select(.id == $J_OK) | .charged")" "^null$"

# 12. The cache per cluster and user: an unchanged queue is answered 304
# (update_time) and read from $XDG_CACHE_HOME/gq/; a change is fetched.
cleanup_jobs
as alice "$GQ" submit --gpus 1 --hold --name held -- true >/dev/null
sleep 6 # a scheduler pass: then nothing changes
as alice "$GQ" ls >/dev/null
cache=$(ls "$work"/cache-alice/gq/slurm-*-alice-jobs.json 2>/dev/null | head -1)
check_match "cache: the last answer kept under XDG_CACHE_HOME/gq" "$cache" "slurm-http___127\.0\.0\.1_[0-9]+-alice-jobs\.json$"
if [ -n "$cache" ]; then
	sed -i 's/"name": "held"/"name": "from-cache"/' "$cache"
	out=$(as alice "$GQ" ls)
	check_match "cache: no change, so the cached answer is used (304)" "$out" " from-cache "
	as alice "$GQ" submit --gpus 1 --hold --name fresh -- true >/dev/null
	out=$(as alice "$GQ" ls)
	check_match "cache: a change is fetched in full" "$out" " fresh .* held "
	check_match "cache: ... and replaces the cached answer" "$out" " held +gpu"
fi

# 13. Commands built on gq serve's records say in one line that Slurm has
# none, and exit 5 (gq stats computes from slurmdbd's records: ts07).
# The hint only where it helps: gq serve --slurm keeps events, not the
# others.
out=$(as alice "$GQ" events 2>&1)
check_eq "events: not available on Slurm, exit 5" "$?:$out" \
	"5:gq: gq events is not available on Slurm (needs gq serve in front of it)"
out=$(as alice "$GQ" preemptions 2>&1)
check_eq "preemptions: not available on Slurm, exit 5, why" "$?:$out" \
	"5:gq: gq preemptions is not available on Slurm: it does not record which job preempted which (gq events through gq serve --slurm lists the preemptions it saw)"
out=$(as alice "$GQ" reclaim 2>&1)
check_eq "reclaim: not available on Slurm, exit 5, why (no hint)" "$?:$out" \
	"5:gq: gq reclaim is not available on Slurm: gq cannot see there whether a job's GPUs are idle"

# 14. History from slurmdbd (/slurmdb/v0.0.38/jobs): a running job's end is
# predicted from the caller's completed jobs of its name, not its limit
# (20 s; looked at while the new run is younger than that, since a job that
# outlives its expected runtime is expected to run to its limit).
cleanup_jobs
H1=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 1h --name histjob -- sleep 20)
H2=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 1h --name histjob -- sleep 20)
wait_state "$H1" COMPLETED 60
wait_state "$H2" COMPLETED 60
for _ in $(seq 1 40); do
	[ "$(sacct -n -X -j "$H1,$H2" -o state 2>/dev/null | grep -c COMPLETED)" = 2 ] && break
	sleep 0.5
done
H3=$(sub alice "$GQ" submit --gpus 0 --queue debug --time-limit 1h --name histjob -- sleep 600)
wait_state "$H3" RUNNING 30
if command -v jq >/dev/null; then
	left=$(as alice "$GQ" ls --json | jq --argjson id "$H3" \
		'.[] | select(.id == $id) | .predicted_end - .start_time')
	if [ -n "$left" ] && [ "$left" -lt 120 ]; then t_report 0 "history: the running job's end from slurmdbd's completed runs"; else
		t_report 1 "history: the running job's end from slurmdbd's completed runs (predicted runtime ${left:-?} s, limit 3600)"
	fi
fi

echo "# ts01 took $((SECONDS - start)) s"
exit $((failed > 0))
