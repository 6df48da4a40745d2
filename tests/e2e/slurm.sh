# tests/e2e/slurm.sh - sourced by the Slurm family (ts*-slurm*.sh), after
# setting TS to the script's short name (ts01): what each of them did on its
# own before. TAP-like lines "ok N - TS desc", the kit's environment and
# its tokens, and the one-line skip when the kit is not there.
#
#   TS=ts07
#   . "$(dirname "$0")/slurm.sh"
#   slurm_env [MORE-SKIP-TEXT]   # root, the env file, a slurmrestd that answers
#   check_eq / check_match "desc" ...; t_report RC "desc"; slurm_skip "why"
#
# The scripts share one cluster: never run two at once (tests/run.sh
# --slurm runs them one after the other).
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/../.." && pwd)/gq}
ENV=${SLURM_TEST_ENV:-/tmp/slurm-test/env}
n=0
failed=0
t_report() { # ok? desc
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $TS $2"; else
		echo "not ok $n - $TS $2"
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
slurm_skip() { # why: the one line of a skipped script (after any checks
	# that need no kit), and its end
	echo "ok $((n + 1)) - $TS # SKIP $1"
	exit $((failed > 0))
}
# direct CMD...: gq CMD as alice straight to slurmrestd (the Slurm backend);
# via CMD...: gq CMD as alice through the front slurm_front starts; both in
# $work, the script's scratch directory (mode 1777). Scripts older than
# these (ts06, ts08, ts09) define their own.
direct() {
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache-direct" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
via() {
	(cd "$work" && runuser -u alice -- env -i GQ_SERVER="unix:$work/front.sock" HOME="$work" \
		XDG_CONFIG_HOME="$work/cfg" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
# slurm_front: gq serve --slurm with root's token on $work/front.sock, its
# log in $work/front.log; front_pid.
slurm_front() {
	mkdir -p "$work/front-home"
	env -i SLURM_JWT="$SLURM_ADMIN_JWT" HOME="$work/front-home" \
		XDG_CACHE_HOME="$work/front-home/cache" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C \
		"$GQ" serve --slurm "$SLURM_URL" --listen "unix:$work/front.sock" >"$work/front.log" 2>&1 &
	front_pid=$!
}
# slurm_env: skips unless root with the kit's env file; sources it, sets
# ALICE_JWT, BOB_JWT and ADMIN_JWT from it (SLURM_JWT unset: each command
# is given its user's token), and skips unless slurmrestd answers.
slurm_env() {
	if [ "$(id -u)" != 0 ] || [ ! -r "$ENV" ]; then
		slurm_skip "the Slurm kit is not running (bash shared/slurm/start.sh as root)"
	fi
	. "$ENV"
	ALICE_JWT=$SLURM_JWT BOB_JWT=${SLURM_JWT2:-} ADMIN_JWT=${SLURM_ADMIN_JWT:-}
	unset SLURM_JWT SLURM_JWT_ALICE
	curl -sf -o /dev/null -H "X-SLURM-USER-NAME: $SLURM_USER" -H "X-SLURM-USER-TOKEN: $ALICE_JWT" \
		"$SLURM_URL/slurm/$SLURM_API_VERSION/ping" ||
		slurm_skip "slurmrestd does not answer at $SLURM_URL"
}
