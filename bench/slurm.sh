#!/bin/bash
# bench/slurm.sh - gq beside Slurm's own tools on the kit of shared/slurm, in
# one run: at 1,000 and at 10,000 jobs, `gq ls` vs `squeue` and `gq ls
# --json` vs `squeue --json` (wall ms, the median of RUNS runs; gq without
# and with its cache); `gq submit` vs `sbatch`, one process per job, 8
# clients at once (jobs per second, 1,000 jobs each); and which fraction
# of the pending jobs has a start estimate in `squeue --start` and in `gq
# eta`; `gq ls` through gq serve --slurm (a front started here with root's
# token) beside squeue; and, at 1,000 jobs, slurmctld's job queries (GET
# /diag's REQUEST_JOB_INFO) in 60 s with 1 and 20 `gq top` clients, through
# the front and each straight to slurmrestd. Prints every figure and the
# ratios; asserts nothing.
#
# The jobs are alice's: 1 GPU, a 1-hour limit, `sleep 3600`, so 8 run and
# the rest wait. Slurm's default MaxJobCount (10,000) counts every job in
# slurmctld's memory, so the bench raises it in the live slurm.conf and
# restarts slurmctld with its state kept (Slurm reads MaxJobCount only at
# start; slurm.conf(5)); the kit's start.sh writes slurm.conf afresh.
# Cancels alice's jobs first and last.
#
#   bash bench/slurm.sh [RUNS [MAX]]   (as root, with the kit up: shared/slurm/start.sh)
#
# MAX 1000 stops after the figures at 1,000 jobs (default 10000: both).
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/.." && pwd)/gq}
RUNS=${1:-3}
MAX=${2:-10000}
KIT=${SLURM_KIT:-$(cd "$(dirname "$0")/../.." && pwd)/shared/slurm}
[ -r "$KIT/common.sh" ] || KIT=/work/shared/slurm
ENV=${SLURM_TEST_ENV:-/tmp/slurm-test/env}
if [ "$(id -u)" != 0 ] || [ ! -r "$ENV" ] || [ ! -r "$KIT/common.sh" ]; then
	echo "bench/slurm.sh: needs root and the Slurm kit (bash shared/slurm/start.sh)" >&2
	exit 1
fi
. "$ENV"
JWT=$SLURM_JWT
. "$KIT/common.sh" # unsets SLURM_JWT: the Slurm tools use munge
work=$(mktemp -d) # alice's scratch directory: her cwd, HOME and cache
chmod 1777 "$work"
cleanup() {
	[ -n "${front_pid:-}" ] && kill "$front_pid" 2>/dev/null
	tmux -L gqbench kill-server 2>/dev/null
	scancel -u alice >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
front_pid=

gq_as() { # gq ARGS... as alice; CACHE=1 keeps $XDG_CACHE_HOME between calls
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$JWT" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CACHE_HOME="$work/cache${CACHE:+-kept}" \
		PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
gq_front() { # gq ARGS... as alice through the front (gq serve --slurm)
	(cd "$work" && runuser -u alice -- env -i GQ_SERVER="unix:$work/front.sock" HOME="$work" \
		PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
slurm_as() { # a Slurm tool as alice (munge)
	(cd "$work" && runuser -u alice -- env -i PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$@")
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# median_ms CMD...: the median wall time of RUNS runs, output dropped.
median_ms() {
	local i t0 v=()
	for ((i = 0; i < RUNS; i++)); do
		[ -z "${CACHE:-}" ] && rm -rf "$work/cache"
		t0=$(now_ms)
		"$@" >/dev/null 2>&1
		v+=($(($(now_ms) - t0)))
	done
	printf '%s\n' "${v[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
# submit_rate N TOOL: jobs per second of N one-process submissions, 8 at once.
submit_rate() {
	local n=$1 tool=$2 t0 t
	seq 1 "$n" >"$work/seq"
	t0=$(now_ms)
	if [ "$tool" = sbatch ]; then
		slurm_as sh -c "xargs -P 8 -I{} sbatch -Q -p gpu --gpus=1 -t 60 -J b{} --wrap='sleep 3600' -o /dev/null <$work/seq"
	else
		(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$JWT" GQ_BACKEND=slurm \
			GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CACHE_HOME="$work/cache-sub" \
			PATH=/usr/bin:/bin TZ=UTC LC_ALL=C sh -c "xargs -P 8 -I{} $GQ submit --gpus 1 \
			--time-limit 1h --name g{} -- sleep 3600 <$work/seq >/dev/null")
	fi
	t=$(($(now_ms) - t0))
	awk -v n="$n" -v t="$t" 'BEGIN { printf "%.0f", (t > 0 ? n * 1000 / t : 0) }'
}
njobs() { squeue -h -u alice -o %A | wc -l; }
fill_to() { # N: sbatch (16 at once) until alice has N jobs
	local have
	have=$(njobs)
	[ "$have" -ge "$1" ] && return
	seq 1 $(($1 - have)) >"$work/seq"
	slurm_as sh -c "xargs -P 16 -I{} sbatch -Q -p gpu --gpus=1 -t 60 -J f{} --wrap='sleep 3600' -o /dev/null <$work/seq"
}

# MaxJobCount: raised, slurmctld restarted with its state.
conf=/etc/slurm/slurm.conf
if ! grep -q '^MaxJobCount=100000' "$conf"; then
	sed -i '/^MaxJobCount=/d' "$conf"
	echo 'MaxJobCount=100000' >>"$conf"
	pid=$(pid_of slurmctld) && kill "$pid"
	for _ in $(seq 1 100); do [ -n "$(pid_of slurmctld)" ] || break; sleep 0.2; done
	# as the kit's spawn does, but in a session of its own, so that
	# stopping this bench never stops slurmctld with it (stop.sh does)
	(cd / && exec setsid nohup /usr/sbin/slurmctld -D -i </dev/null \
		>>"$SLURM_TEST_LOG_DIR/slurmctld.stdout" 2>&1) &
	write_pidfile slurmctld $!
	for _ in $(seq 1 120); do scontrol ping 2>/dev/null | grep -q 'is UP' && break; sleep 0.5; done
	sleep 2
fi
echo "# MaxJobCount: $(scontrol show config | sed -n 's/^MaxJobCount *= *//p')"
scancel -u alice >/dev/null 2>&1
sleep 2

# measure LABEL: the side-by-side figures at the queue as it is.
measure() {
	local sq sqj gl glj glc
	sq=$(median_ms slurm_as squeue)
	sqj=$(median_ms slurm_as squeue --json)
	gl=$(median_ms gq_as ls)
	glj=$(median_ms gq_as ls --json)
	gq_as ls >/dev/null 2>&1 # fills the kept cache
	glc=$(CACHE=1 median_ms gq_as ls)
	front_current
	glf=$(median_ms gq_front ls)
	printf '%-7s squeue %6s ms   gq ls %6s ms (x%s)   with the cache %6s ms (x%s)   through gq serve --slurm %6s ms (x%s)\n' "$1" \
		"$sq" "$gl" "$(ratio "$gl" "$sq")" "$glc" "$(ratio "$glc" "$sq")" "$glf" "$(ratio "$glf" "$sq")"
	printf '%-7s squeue --json %6s ms   gq ls --json %6s ms (x%s)\n' "$1" "$sqj" "$glj" \
		"$(ratio "$glj" "$sqj")"
	local np ns ng
	np=$(squeue -h -u alice -t PD -o %A | wc -l)
	ns=$(slurm_as squeue --start -h -u alice -t PD -o '%S' | grep -cv 'N/A')
	ng=$(gq_as eta --json 2>/dev/null | jq '[.[] | select(.predicted_start != null)] | length')
	printf '%-7s pending %s: a start estimate in squeue --start %s (%s%%), in gq eta %s (%s%%)\n' \
		"$1" "$np" "$ns" "$(awk -v a="$ns" -v b="$np" 'BEGIN { printf "%.1f", (b ? 100 * a / b : 0) }')" \
		"$ng" "$(awk -v a="$ng" -v b="$np" 'BEGIN { printf "%.1f", (b ? 100 * a / b : 0) }')"
}

# The front: gq serve --slurm with root's token on a socket alice reaches.
env -i SLURM_JWT="$SLURM_ADMIN_JWT" HOME="$work" XDG_CACHE_HOME="$work/front-cache" \
	PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" serve --slurm "$SLURM_URL" \
	--listen "unix:$work/front.sock" >"$work/front.log" 2>&1 &
front_pid=$!
# front_current: waits until the front's snapshot has alice's jobs as
# squeue counts them (it polls every 2 to 30 s).
front_current() {
	local want i
	want=$(njobs)
	for ((i = 0; i < 120; i++)); do
		[ "$(gq_front ls --user alice --format '{id}' 2>/dev/null | wc -l)" -ge "$want" ] && return
		sleep 1
	done
	echo "# the front did not catch up with $want jobs in 120 s" >&2
}
job_queries() { # slurmctld's REQUEST_JOB_INFO count so far (GET /diag)
	curl -s -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $SLURM_ADMIN_JWT" \
		"$SLURM_URL/slurm/$SLURM_API_VERSION/diag" |
		jq '[.statistics.rpcs_by_message_type[] | select(.message_type == "REQUEST_JOB_INFO") | .count] | add // 0'
}
# top_load N HOW: slurmctld's job queries in 60 s with N gq top clients at
# --interval 2 as alice, HOW "front" (through the front) or "direct" (each
# to slurmrestd itself).
top_load() {
	local n=$1 how=$2 i q0 q1 envs
	if [ "$how" = front ]; then
		envs="GQ_SERVER=unix:$work/front.sock"
	else
		envs="SLURM_JWT=$JWT GQ_BACKEND=slurm GQ_SERVER=$SLURM_URL XDG_CACHE_HOME=$work/cache-top"
	fi
	for ((i = 0; i < n; i++)); do
		tmux -L gqbench new-session -d -s "t$i" -x 160 -y 40 "runuser -u alice -- env -i $envs \
			HOME=$work TERM=xterm TZ=UTC LC_ALL=C $GQ top --interval 2"
	done
	sleep 10 # every client has its first snapshot
	q0=$(job_queries)
	sleep 60
	q1=$(job_queries)
	tmux -L gqbench kill-server 2>/dev/null
	echo $((q1 - q0))
}

echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), RUNS=$RUNS, $("$GQ" version | head -1)"
sb=$(submit_rate 1000 sbatch)
sleep 6 # a scheduler pass
measure 1000
for how in front direct; do
	t1=$(top_load 1 "$how")
	t20=$(top_load 20 "$how")
	printf 'gq top  %-6s slurmctld job queries in 60 s: 1 client %s, 20 clients %s (x%s)\n' \
		"$how" "$t1" "$t20" "$(ratio "$t20" "$t1")"
done
gs=$(submit_rate 1000 gq)
printf 'submit  sbatch %s jobs/s   gq submit %s jobs/s (x%s), 8 clients, one process a job\n' \
	"$sb" "$gs" "$(ratio "$gs" "$sb")"
[ "$MAX" -lt 10000 ] && exit 0
fill_to 10000
sleep 6
measure 10000
