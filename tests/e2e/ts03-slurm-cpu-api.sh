#!/bin/bash
# ts03-slurm-cpu-api.sh - the real gq binary against the real Slurm kit:
# where a CPU-only job goes (the kit has no partition without GPUs: `gpu`
# is gpu1-2 and `debug` is cpu1 and gpu1-2, so a CPU-only job without
# --queue is refused with a line saying how to name one, and --queue is
# respected), and the API version kept per cluster in the cache: the first
# command asks which versions slurmrestd serves, the next ones nothing, a
# cached version slurmrestd does not serve (404) is negotiated again, and
# an expired one too; negotiating is GET /openapi/v3 (the versions it
# serves) and one ping of the newest gq speaks. Requests are counted in slurmrestd's own log. Runs
# as root (it acts as alice through runuser); cancels alice's jobs first
# and last. Skips with one line when the kit is not running.
TS=ts03
. "$(dirname "$0")/slurm.sh"
slurm_env
LOG=$SLURM_TEST_DIR/log/slurmrestd.log
[ -r "$LOG" ] || slurm_skip "slurmrestd has no log at $LOG"
work=$(mktemp -d)
chmod 1777 "$work"
cleanup() {
	scancel -u alice >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
as() { # CMD... as alice with the backend set, in $work, her cache in $work/cache
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$@")
}
# requests CMD...: runs CMD, then prints the requests slurmrestd logged
# meanwhile, "GET /slurm/v0.0.38/nodes" a line (and "GET /openapi/v3").
requests() {
	local before
	before=$(wc -l <"$LOG")
	"$@" >/dev/null 2>&1
	sleep 0.3
	tail -n +$((before + 1)) "$LOG" | sed -n 's/.*operations_router: [^ ]* \([A-Z]* \/\(slurm\|openapi\)[^ ]*\).*/\1/p'
}
scancel -u alice >/dev/null 2>&1

# 1. CPU-only jobs: no partition of the kit is GPU-less.
out=$(as "$GQ" submit --gpus 0 --time-limit 5m -- true 2>&1)
rc=$?
check_eq "--gpus 0 without --queue, no GPU-less partition: exit 2 and how to name one" "$rc: $out" \
	"2: gq: no partition of this cluster has only nodes without GPUs: name one with --queue to run a CPU-only job there"
check_eq "nothing was submitted" "$(squeue -h -u alice | wc -l)" 0
id=$(as "$GQ" submit --gpus 0 --queue debug --time-limit 5m --hold -- true | sed -n 's/^submitted job //p')
check_eq "--gpus 0 --queue debug: the partition named" "$(squeue -h -j "$id" -o %P 2>/dev/null)" debug
scancel -u alice >/dev/null 2>&1

# 2. The API version, once per cluster.
rm -rf "$work/cache"
first=$(requests as "$GQ" ls)
# (and, when the cluster has active jobs, slurmdbd's runs for their
# history, kept 10 minutes: the next command does not ask again)
check_match "an empty cache: the versions it serves, one ping of the newest gq speaks, slurmctld's clock, then the snapshot" \
	"$(printf '%s\n' "$first" | tr '\n' ' ')" \
	"^GET /openapi/v3 GET /slurm/v0\\.0\\.38/ping GET /slurm/v0\\.0\\.38/diag GET /slurm/v0\\.0\\.38/nodes GET /slurm/v0\\.0\\.38/partitions GET /slurm/v0\\.0\\.38/reservations GET /slurm/v0\\.0\\.38/jobs (GET /slurmdb/v0\\.0\\.38/jobs )?\$"
api=$(ls "$work/cache/gq/" | grep -- '-api$')
check_eq "the version is kept per cluster (no user in the name)" "$api" "slurm-http___127.0.0.1_6820-api"
check_eq "it says v0.0.38" "$(head -1 "$work/cache/gq/$api" | cut -d' ' -f1-2)" "gq-slurm-api 38"
second=$(requests as "$GQ" ls)
check_eq "the next command pings no version" "$(printf '%s\n' "$second" | tr '\n' ' ')" \
	"GET /slurm/v0.0.38/nodes GET /slurm/v0.0.38/partitions GET /slurm/v0.0.38/reservations GET /slurm/v0.0.38/jobs "
out=$(as "$GQ" version 2>&1)
check_eq "gq version still names the Slurm release and the API from the cache" \
	"$(printf '%s\n' "$out" | grep -Ec "Slurm 22\.05\.[0-9]+ at '$SLURM_URL' \(openapi v0\.0\.38")" 1
# A version this slurmrestd does not serve, as after an upgrade.
printf 'gq-slurm-api 42 %s\n{}' "$(date +%s)" >"$work/cache/gq/$api"
stale=$(requests as "$GQ" ls)
check_eq "a cached version that is gone: one 404, negotiated again, the command answers" \
	"$(printf '%s\n' "$stale" | head -3 | tr '\n' ' ')" \
	"GET /slurm/v0.0.42/nodes GET /openapi/v3 GET /slurm/v0.0.38/ping "
check_eq "... and gq ls exits 0" "$(as "$GQ" ls >/dev/null 2>&1; echo $?)" 0
check_eq "... and the cache says v0.0.38 again" "$(head -1 "$work/cache/gq/$api" | cut -d' ' -f1-2)" \
	"gq-slurm-api 38"
printf 'gq-slurm-api 38 %s\n{}' $(($(date +%s) - 86401)) >"$work/cache/gq/$api"
old=$(requests as "$GQ" ls)
check_eq "an expired version is asked again" "$(printf '%s\n' "$old" | head -2 | tr '\n' ' ')" \
	"GET /openapi/v3 GET /slurm/v0.0.38/ping "
echo "# ts03: $n checks, $failed failed"
[ "$failed" = 0 ]
