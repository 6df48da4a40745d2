#!/bin/bash
# ts07-slurm-actions.sh - gq's actions on the real Slurm kit beyond ts01:
# an operator's numeric priority (gq prio --priority, root's token is the
# kit's admin), Slurm's refusal of it to a user, and the actions this
# Slurm's REST API cannot do (exit 5, one line saying what can). Runs as
# root; cancels every job of alice first and last. Skips with one line when
# the kit is not running. Never in parallel with another Slurm script.
TS=ts07
. "$(dirname "$0")/slurm.sh"
slurm_env
work=$(mktemp -d)
chmod 1777 "$work"
cleanup() {
	scancel -u alice >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
# as USER CMD...: runs CMD as alice (her token) or root (the admin's).
as() {
	local u=$1 tok=$ALICE_JWT run=(runuser -u "$1" --)
	shift
	[ "$u" = root ] && tok=$ADMIN_JWT run=()
	(cd "$work" && "${run[@]}" env -i SLURM_JWT="$tok" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache-$u" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$@")
}
sub() { # USER gq-submit-args... -> job id
	as "$@" | sed -n 's/^submitted job //p'
}
jobf() { # ID FORMAT -> squeue field
	squeue -h -j "$1" -o "$2" 2>/dev/null
}
scancel -u alice >/dev/null 2>&1
start=$SECONDS

# 1. gq prio --priority: Slurm's job priority, set by an operator.
J=$(sub alice "$GQ" submit --begin now+1h --gpus 1 --time-limit 10m --name ts07 -- sleep 60)
check_match "a job waiting for its begin time to act on" "$J" '^[0-9]+$'
out=$(as root "$GQ" prio --priority 4242 "$J" 2>&1)
check_eq "prio --priority as the admin: exit 0" "$?" 0
check_eq "prio --priority: says what it set" "$out" "job $J: priority 4242"
check_eq "prio --priority: Slurm's priority is the number (squeue %Q)" "$(jobf "$J" %Q)" 4242
out=$(as alice "$GQ" prio --priority 99999 "$J" 2>&1)
check_eq "prio --priority as a user: Slurm's refusal, exit 4" "$?" 4
check_match "prio --priority as a user: Slurm's message" "$out" "^gq: .*Slurm.*(denied|permission|Access)"
check_eq "prio --priority as a user: one line" "$(printf '%s\n' "$out" | wc -l)" 1
check_eq "prio --priority refused: the priority is unchanged" "$(jobf "$J" %Q)" 4242

# 2. What this Slurm's REST API cannot do: exit 5 and one line saying so
# (and what can), never a generic refusal.
unavail() { # desc regex gq-args...
	local desc=$1 re=$2 out rc
	shift 2
	out=$(as alice "$GQ" "$@" 2>&1)
	rc=$?
	check_eq "$desc: exit 5" "$rc" 5
	check_match "$desc: says so" "$out" "$re"
	check_eq "$desc: one line" "$(printf '%s\n' "$out" | wc -l)" 1
}
unavail "requeue" "^gq: gq requeue is not available on Slurm: this Slurm's REST API \(v0\.0\.[0-9]+\) cannot requeue a job; an operator can, with 'scontrol requeue $J'$" requeue "$J"
unavail "prio --clear" "^gq: gq prio --clear is not available on Slurm: " prio --reason x --clear "$J"
unavail "confirm" "^gq: gq confirm is not available on Slurm: " confirm "$J"
unavail "checkpoint" "^gq: gq checkpoint is not available on Slurm: " checkpoint "$J"
unavail "clock +1h" "^gq: gq clock is not available on Slurm: " clock +1h
unavail "policy apply" "^gq: gq policy apply is not available on Slurm: .*gq policy export slurm" policy apply HEAD
# v0.0.38 answers a new name with success and keeps the old one: gq says
# so instead of "updated".
unavail "update --name" "^gq: gq update --name is not available on Slurm's openapi v0\.0\.38: it accepts a new name and keeps the old one; rename with 'scontrol update JobId=$J JobName=NAME'$" update "$J" --name renamed

# 3. An existing sbatch script, unchanged: its #SBATCH lines land in Slurm
# as sbatch would put them; gq's command line and #GQ lines win; what gq
# cannot honour is warned about by name.
cat >"$work/train.sh" <<EOS
#!/bin/bash
#SBATCH -J ts07-sbatch
#SBATCH -p debug -A proj_a
#SBATCH -q p2
#SBATCH -N 1-2 -n 2 --ntasks-per-node=2
#SBATCH -c 2 --mem=1G -t 0:30:00
#SBATCH --gres=gpu:1 -C a100
#SBATCH --exclusive --hold
#SBATCH --array=0-3%2
#SBATCH --mail-type=END,FAIL --mail-user=alice@example.com
#SBATCH -D $work -o $work/o-%A_%a.log -e $work/e-%A_%a.log
#SBATCH --mem-per-cpu=2G
#SBATCH --requeue
srun hostname
EOS
chmod 644 "$work/train.sh"
out=$(as alice "$GQ" submit train.sh 2>"$work/warn")
check_match "sbatch script: an #SBATCH --array is submitted as an array" "$out" \
	'^submitted array job [0-9]+ \(4 tasks\)$'
J=${out#submitted array job }
J=${J%% *}
check_match "sbatch script: submitted" "$J" '^[0-9]+$'
check_eq "sbatch script: a warning by name for each option gq cannot honour" "$(cat "$work/warn")" \
	"gq: warning: script 'train.sh': #SBATCH --mem-per-cpu=2G is not honoured by gq; ignored
gq: warning: script 'train.sh': #SBATCH --requeue is not honoured by gq; ignored"
show=$(scontrol show job "$J" 2>/dev/null | tr ' ' '\n')
sfield() { printf '%s\n' "$show" | sed -n "s|^$1=||p" | head -1; }
check_eq "sbatch script: -J" "$(sfield JobName)" ts07-sbatch
check_eq "sbatch script: -p, -A, -q" "$(sfield Partition) $(sfield Account) $(sfield QOS)" "debug proj_a p2"
check_eq "sbatch script: -N 1-2, -n 2" "$(sfield NumNodes) $(sfield NumTasks)" "1-2 2"
check_match "sbatch script: --ntasks-per-node=2" "$(sfield NtasksPerN:B:S:C)" "^2:"
check_eq "sbatch script: -c 2, --mem=1G, -t 0:30:00" "$(sfield CPUs/Task) $(sfield MinMemoryNode) $(sfield TimeLimit)" "2 1G 00:30:00"
check_eq "sbatch script: --gres=gpu:1, -C a100" "$(sfield TresPerNode) $(sfield Features)" "gres:gpu:1 a100"
check_eq "sbatch script: --exclusive, --hold" "$(sfield OverSubscribe) $(sfield Reason)" "NO JobHeldUser"
check_eq "sbatch script: --array=0-3%2" "$(sfield ArrayTaskId)" "0-3%2"
check_eq "sbatch script: --mail-type, --mail-user" "$(sfield MailType) $(sfield MailUser)" "END,FAIL alice@example.com"
check_eq "sbatch script: -D, -o, -e" "$(sfield WorkDir) $(sfield StdOut) $(sfield StdErr)" \
	"$work $work/o-${J}_4294967294.log $work/e-${J}_4294967294.log"
scancel "$J" >/dev/null 2>&1
# gq's command line and #GQ lines win over #SBATCH.
sed -i 's/^#SBATCH -J ts07-sbatch$/&\n#GQ --tier P0 --cpus 3/' "$work/train.sh"
out=$(as alice "$GQ" submit --name cli-name --time-limit 10m --queue gpu train.sh 2>/dev/null)
J=${out#submitted array job }
J=${J%% *}
show=$(scontrol show job "$J" 2>/dev/null | tr ' ' '\n')
check_eq "sbatch script: --name, --time-limit, --queue and #GQ's --tier, --cpus win" \
	"$(sfield JobName) $(sfield TimeLimit) $(sfield Partition) $(sfield QOS) $(sfield CPUs/Task)" \
	"cli-name 00:10:00 gpu p0 3"
scancel "$J" >/dev/null 2>&1
# --export: NONE plus a pair, seen by the job itself; no #SBATCH GPU line
# asks for no GPU, as under sbatch.
cat >"$work/env.sh" <<EOS
#!/bin/sh
#SBATCH -p debug -t 1 -o $work/env-%j.out
#SBATCH --export=NONE,TS04_X=7
echo "x=\$TS04_X y=\$TS04_Y"
EOS
chmod 644 "$work/env.sh"
out=$(as alice env TS04_Y=1 "$GQ" submit env.sh 2>&1)
J=${out#submitted job }
check_eq "sbatch script: no #SBATCH GPU line, no GPU" "$(scontrol show job "$J" | grep -c 'gres:gpu')" 0
for ((i = 0; i < 40; i++)); do [ -s "$work/env-$J.out" ] && break; sleep 0.5; done
check_eq "sbatch script: --export=NONE,TS04_X=7" "$(cat "$work/env-$J.out" 2>/dev/null)" "x=7 y="

# 4. gq stats from slurmdbd's records, by gq's core: the starts of a past
# window are sacct's (-D: a requeued job's every run), the columns Slurm
# does not record are null and named.
# slurmctld hands its records to slurmdbd in the background (on a fresh
# kit, after the cluster registers): wait until sacct has a start in the
# window, as gq stats asks the same slurmdbd (on a kit started just before
# this script, its own jobs' starts, once they are a minute old).
for _ in $(seq 1 100); do
	sacct -X -a -n -P -S now-2hours -E now-1minutes -o Start 2>/dev/null |
		grep -q '^[0-9]' && break
	sleep 1
done
# sacct's starts of the window [F, T) (unix seconds)
sacct_starts() {
	SLURM_TIME_FORMAT=%s sacct -X -D -a -n -P -S "$(date -u -d @$(($1 - 86400)) +%Y-%m-%dT%H:%M:%S)" \
		-E "$(date -u -d @$(($2 + 86400)) +%Y-%m-%dT%H:%M:%S)" -o Start,Submit |
		awk -F'|' -v f="$1" -v t="$2" '$1 ~ /^[0-9]+$/ && $1 >= $2 && $1 >= f && $1 < t { n++ } END { print n + 0 }'
}
# slurmdbd takes slurmctld's records in the background: a start it got
# between gq's query and sacct's would count once only. sacct is asked
# before and after gq; when the two differ, again (3 times at most).
for _ in 1 2 3; do
	t1=$(($(date +%s) - 60))
	before=$(sacct_starts $((t1 - 7200)) "$t1")
	out=$(as alice "$GQ" stats --json --since $((t1 - 7200)) --until "$t1" 2>"$work/stats.err")
	rc=$?
	sstarts=$(sacct_starts $((t1 - 7200)) "$t1")
	[ "$before" = "$sstarts" ] && break
done
# A failure is not asked again: what gq said and slurmrestd logged, for
# whoever reads this run (HTTP 500 there was ts04's deleted QOS).
if [ "$rc" != 0 ]; then
	head -3 "$work/stats.err" | sed 's/^/# gq: /'
	tail -5 "${SLURM_TEST_DIR:-/tmp/slurm-test}/log/slurmrestd.log" 2>/dev/null | sed 's/^/# slurmrestd: /'
fi
check_eq "stats on Slurm: exit 0" "$rc" 0
check_eq "stats --json: not_recorded" "$(printf '%s' "$out" | jq -c .not_recorded)" \
	'["over_limit","overtaken","would_preempt","work_lost","charged"]'
check_eq "stats --json: those columns are null in every group" \
	"$(printf '%s' "$out" | jq '[.groups[] | .overtaken, .over_limit, .would_preempt, .work_lost | select(. != null)] | length')" 0
starts=$(printf '%s' "$out" | jq '[.groups[] | select(.queue == "*") | .starts] | add // 0')
check_eq "stats: the window's starts are sacct's (asked before and after: $before, $sstarts)" \
	"$starts" "$sstarts"
check_match "stats: some jobs started in the window" "$starts" '^[1-9]'
out=$(as alice "$GQ" stats --since now-2h 2>&1)
check_match "stats: the window" "$out" '^from ([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+ to ([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+, 2h'
check_match "stats: '-' for what Slurm does not record" "$out" '^\* +P1 +[0-9]+ +[0-9a-z]+ +[0-9a-z]+ +[0-9a-z]+ +- +- +[0-9]+ +- +- +[0-9]+$'
check_match "stats: one line saying so" "$out" '^OVER, OVERTAKEN, WOULD and LOST are not recorded on Slurm'
# A department's charge would be gq's tier prices, which Slurm does not use.
check_eq "stats --json: no department's charge" \
	"$(as alice "$GQ" stats --json --since now-2h | jq '[.depts[] | .charged | select(. != null)] | length')" 0
check_match "stats: CHARGED '-' for every account" "$(printf '%s\n' "$out" | sed -n '/^DEPARTMENT/,$p' | sed -n 2p)" \
	'^proj_[ab] +[0-9.]+ +-$'
check_match "stats: and one line saying why" "$out" \
	"^CHARGED is not computed on Slurm: its charges are its QOS' usage factors, not gq's tier prices$"

echo "# ts07: $((SECONDS - start))s"
echo "1..$n"
[ "$failed" = 0 ]
