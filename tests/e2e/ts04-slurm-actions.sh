#!/bin/bash
# ts04-slurm-actions.sh - gq's actions on the real Slurm kit beyond ts01:
# an operator's numeric priority (gq prio --priority, root's token is the
# kit's admin), Slurm's refusal of it to a user, and the actions this
# Slurm's REST API cannot do (exit 5, one line saying what can). Runs as
# root; cancels every job of alice first and last. Skips with one line when
# the kit is not running. Never in parallel with another Slurm script.
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/../.." && pwd)/gq}
ENV=${SLURM_TEST_ENV:-/tmp/slurm-test/env}
n=0
failed=0
t_report() { # ok? desc
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - ts04 $2"; else
		echo "not ok $n - ts04 $2"
		failed=$((failed + 1))
	fi
}
check_eq() { # desc got want
	if [ "$2" = "$3" ]; then t_report 0 "$1"; else
		printf '# got:  %s\n# want: %s\n' "$2" "$3"
		t_report 1 "$1"
	fi
}
check_match() { # desc got regex
	if printf '%s' "$2" | grep -Eq -- "$3"; then t_report 0 "$1"; else
		printf '# got: %s\n# want match: %s\n' "$2" "$3"
		t_report 1 "$1"
	fi
}
if [ "$(id -u)" != 0 ] || [ ! -r "$ENV" ]; then
	echo "ok 1 - ts04 # SKIP the Slurm kit is not running (bash shared/slurm/start.sh as root)"
	exit 0
fi
. "$ENV"
ALICE_JWT=$SLURM_JWT
ADMIN_JWT=$SLURM_ADMIN_JWT
unset SLURM_JWT
if ! curl -sf -o /dev/null -H "X-SLURM-USER-NAME: $SLURM_USER" -H "X-SLURM-USER-TOKEN: $ALICE_JWT" \
	"$SLURM_URL/slurm/$SLURM_API_VERSION/ping"; then
	echo "ok 1 - ts04 # SKIP slurmrestd does not answer at $SLURM_URL"
	exit 0
fi
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
J=$(sub alice "$GQ" submit --begin now+1h --gpus 1 --time-limit 10m --name ts04 -- sleep 60)
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

echo "# ts04: $((SECONDS - start))s"
echo "1..$n"
[ "$failed" = 0 ]
