#!/bin/bash
# ts05-slurm-clock.sh - the cache of GET /jobs (update_time) when the
# client's clock disagrees with slurmctld's, against the real Slurm kit:
# gq runs under faketime an hour ahead and an hour behind. Ahead, an
# update_time in our clock would lie in slurmctld's future, and every
# change after it would be answered 304 (the old answer, forever); behind,
# every answer would be whole. gq asks update_time in slurmctld's time
# (GET /diag's clock, kept with the API version), so ahead it sees a new
# job, and behind an unchanged queue comes from the cache; a snapshot's now
# is slurmctld's too (a wait is not an hour off). Runs as root
# (acts as alice through runuser); cancels alice's jobs first and last.
# Skips with one line when the kit or faketime is not there.
TS=ts05
. "$(dirname "$0")/slurm.sh"
command -v faketime >/dev/null || slurm_skip "no faketime (Debian's faketime, make deps)"
slurm_env
start=$SECONDS
work=$(mktemp -d)
chmod 1777 "$work"
trap 'scancel -u alice >/dev/null 2>&1; rm -rf "$work"' EXIT
# at SHIFT CACHE CMD...: CMD as alice, her clock SHIFT ("+1h", "-1h", "+0"),
# her cache in $work/CACHE.
at() {
	local shift=$1 cache=$2
	shift 2
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/$cache" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C \
		FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f "$shift" "$@")
}
scancel -u alice >/dev/null 2>&1
sleep 1
check_match "faketime moves gq's clock" "$(at +1h ahead date +%s)" "^$(($(date +%s) + 3600))|^$(($(date +%s) + 3599))|^$(($(date +%s) + 3601))"
at +0 now "$GQ" submit --gpus 1 --hold --name first -- true >/dev/null
sleep 6 # a scheduler pass: then nothing changes

# An hour ahead: a job submitted after the last answer is seen.
at +1h ahead "$GQ" ls >/dev/null
at +0 now "$GQ" submit --gpus 1 --hold --name second -- true >/dev/null
sleep 1
out=$(at +1h ahead "$GQ" ls)
check_match "an hour ahead: the job submitted since is seen (no stale 304)" "$out" " second "
check_match "an hour ahead: a pending job's wait is counted in slurmctld's clock" "$out" \
	" first +gpu +P1 +pending +1 +[0-9]+ +[0-9]+s "

# An hour behind: an unchanged queue is answered 304 and read from the
# cache (made recognisable in it).
sleep 6
at -1h behind "$GQ" ls >/dev/null
cache=$(ls "$work"/behind/gq/slurm-*-alice-jobs.json 2>/dev/null | head -1)
[ -n "$cache" ] && sed -i 's/"name": "first"/"name": "from-cache"/' "$cache"
out=$(at -1h behind "$GQ" ls)
check_match "an hour behind: no change, so the cached answer is used (304)" "$out" " from-cache "

echo "# ts05 took $((SECONDS - start)) s"
exit $((failed > 0))
