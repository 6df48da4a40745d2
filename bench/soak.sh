#!/bin/sh
# bench/soak.sh - SOAK_SECONDS (600) of mixed load against a real gq serve
# on a unix socket in a scratch directory: submissions (with
# Idempotency-Keys), jobs that end (true, a short sleep, a failure), cancels,
# holds and releases, gq ls, gq why, the event stream, snapshots and a
# manual clock that moves, all in bounded loops that pause between
# requests. Prints the server's resident memory (VmRSS, VmHWM) and open file
# descriptors (/proc/PID/fd) at the start, every minute and at the end, the
# growth and a verdict. Not a pass/fail test: the figures go to
# bench/README.md ("Soak").
#
# The jobs' history grows during the run (the server keeps every job), so
# memory is compared per job too; file descriptors must come back to where
# they started. SOAK_SERVER_WRAP runs the server under a wrapper, e.g.
# "valgrind --leak-check=full --log-file=/tmp/vg.%p" (then slower).
set -u
GQ=${GQ:-$(cd "$(dirname "$0")/.." && pwd)/gq}
SECS=${SOAK_SECONDS:-600}
T=$(mktemp -d /tmp/gqsoak.XXXXXX)
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_STATE_HOME="$T/home/.local/state" \
	XDG_RUNTIME_DIR="$T/run" TZ=UTC LC_ALL=C NO_COLOR=1 GQ_SERVER="unix:$T/sock"
unset GQ_TOKEN_FILE GQ_BACKEND
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$T/n"
chmod 700 "$XDG_RUNTIME_DIR"
SOCK="$T/sock"
LOOPS=""

cleanup() {
	for p in $LOOPS; do kill "$p" 2>/dev/null; done
	[ -n "${SPID:-}" ] && kill -TERM "$SPID" 2>/dev/null && sleep 1
	# Jobs outlive their server by design: stop what this run left, by the
	# process groups its supervisors started.
	for f in "$T"/state/run/*/pid; do
		[ -e "$f" ] || continue
		g=$(ps -o pgid= -p "$(cat "$f")" 2>/dev/null | tr -d ' ')
		[ -n "$g" ] && [ "$g" != 0 ] && kill -KILL -- "-$g" 2>/dev/null
	done
	[ "${SOAK_KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

${SOAK_SERVER_WRAP:-} "$GQ" serve --listen "unix:$SOCK" --state-dir "$T/state" --manual-clock \
	--gpus 8 >"$T/server.log" 2>&1 &
SPID=$!
for _ in $(seq 1 400); do
	curl -sf --unix-socket "$SOCK" http://gq/v1/ping >/dev/null 2>&1 && break
	sleep 0.05
done
curl -sf --unix-socket "$SOCK" http://gq/v1/ping >/dev/null || {
	echo "soak: gq serve did not start:"; tail -5 "$T/server.log"; exit 1; }

api() { # METHOD PATH [BODY]: the body of the answer; one request counted
	echo >>"$T/n/$LOOP"
	if [ $# -ge 3 ]; then
		curl -s -m 30 --unix-socket "$SOCK" -X "$1" --data-binary "$3" "http://gq$2"
	else
		curl -s -m 30 --unix-socket "$SOCK" -X "$1" "http://gq$2"
	fi
}
cli() { echo >>"$T/n/$LOOP"; "$GQ" "$@" >/dev/null 2>&1; }
END=$(($(date +%s) + SECS))
alive() { [ "$(date +%s)" -lt "$END" ]; }

submitter() { # K: a submission every ~0.25 s; a job of each kind in turn
	LOOP=sub$1
	i=0
	while alive; do
		i=$((i + 1))
		case $((i % 4)) in
		0) argv='["true"]' ;;
		1) argv='["sleep","0.3"]' ;;
		2) argv='["sh","-c","exit 3"]' ;;
		*) argv='["sh","-c","echo out; echo err >&2"]' ;;
		esac
		held=false
		[ $((i % 10)) = 0 ] && held=true
		echo >>"$T/n/$LOOP"
		id=$(curl -s -m 30 --unix-socket "$SOCK" -X POST -H "Idempotency-Key: s$1-$i" \
			--data-binary "{\"argv\":$argv,\"name\":\"s$1-$i\",\"held\":$held}" \
			http://gq/v1/jobs | jq -r '.id // empty' 2>/dev/null)
		[ -n "$id" ] && echo "$id" >>"$T/ids.$1"
		sleep 0.25
	done
}

actor() { # cancels, holds and releases recent jobs of the submitters
	LOOP=act
	while alive; do
		id=$(cat "$T"/ids.* 2>/dev/null | tail -40 | shuf -n 1)
		if [ -n "$id" ]; then
			case $(shuf -i 1-4 -n 1) in
			1) api POST "/v1/jobs/$id/cancel" >/dev/null ;;
			2) api POST "/v1/jobs/$id/hold" '{}' >/dev/null ;;
			*) api POST "/v1/jobs/$id/release" '{}' >/dev/null ;;
			esac
		fi
		sleep 0.3
	done
}

reader() { # gq ls, gq why, events, snapshots, a job, its log
	LOOP=read$1
	seq=0
	while alive; do
		cli ls
		id=$(api GET '/v1/jobs?state=pending&limit=1' | jq -r '.jobs[0].id // empty')
		[ -n "$id" ] && cli why "$id"
		seq=$(api GET "/v1/events?after=$seq&limit=1000" | jq -r '.next // 0')
		api GET '/v1/snapshot?form=rows' >/dev/null
		id=$(cat "$T"/ids.* 2>/dev/null | tail -100 | shuf -n 1)
		[ -n "$id" ] && api GET "/v1/jobs/$id" >/dev/null && api GET "/v1/jobs/$id/logs" >/dev/null
		cli eta
		sleep 0.5
	done
}

waiter() { # a long poll on the event stream, as gq top does
	LOOP=wait
	seq=0
	while alive; do
		seq=$(api GET "/v1/events?after=$seq&wait=5000&limit=1000" | jq -r '.next // 0')
	done
}

clocker() { # the clock moves an hour every 20 s: finished jobs age out of the day
	LOOP=clock
	while alive; do
		sleep 20
		cli clock +1h
	done
}

# valgrind runs the server in its own process: SPID either way.
spid() { echo "$SPID"; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$(spid)/status"; }
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$(spid)/status"; }
fds() { ls "/proc/$(spid)/fd" | wc -l; }
jobs_n() { api GET '/v1/jobs?all=1&limit=1' | jq -r '.jobs[-1].id // 0'; }
reqs() { cat "$T"/n/* 2>/dev/null | wc -l; }

LOOP=probe
printf '# soak: %d s against gq serve pid %s (%s), load average %s\n' "$SECS" "$(spid)" \
	"$("$GQ" version 2>/dev/null | head -1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %9s %9s %5s %6s %9s %6s\n' t rss_kB hwm_kB fds jobs requests load
sample() { # T
	printf '%6d %9d %9d %5d %6d %9d %6s\n' "$1" "$(rss)" "$(hwm)" "$(fds)" "$(jobs_n)" "$(reqs)" \
		"$(cut -d' ' -f1 /proc/loadavg)"
}
S0=$(sample 0)
echo "$S0"

for k in 1 2 3 4; do submitter $k & LOOPS="$LOOPS $!"; done
actor & LOOPS="$LOOPS $!"
reader 1 & LOOPS="$LOOPS $!"
reader 2 & LOOPS="$LOOPS $!"
waiter & LOOPS="$LOOPS $!"
clocker & LOOPS="$LOOPS $!"

START=$(date +%s)
S1=""
m=1
while [ "$(date +%s)" -lt "$END" ]; do
	next=$((START + 60 * m))
	[ "$next" -gt "$END" ] && next=$END
	while [ "$(date +%s)" -lt "$next" ]; do sleep 1; done
	line=$(sample $(($(date +%s) - START)))
	echo "$line"
	[ -z "$S1" ] && S1=$line
	m=$((m + 1))
done
for p in $LOOPS; do wait "$p" 2>/dev/null; done
LOOPS=""
sleep 2 # the last jobs end, their files close
SE=$(sample $(($(date +%s) - START)))
echo "$SE (after the load, jobs ended)"
if ! kill -0 "$SPID" 2>/dev/null; then
	echo "# soak: THE SERVER DIED; its log ends:"
	tail -5 "$T/server.log" | sed 's/^/#   /'
fi

set -- $S0; r0=$2 f0=$4 j0=$5
set -- $S1; r1=$2 j1=$5
set -- $SE; re=$2 fe=$4 je=$5 nreq=$6
per_job=$(awk -v a="$r1" -v b="$re" -v ja="$j1" -v jb="$je" \
	'BEGIN { if (jb > ja) printf "%.2f", (b - a) / (jb - ja); else print "n/a" }')
printf '# growth: RSS %+d kB from the start, %+d kB from minute 1 (%s kB per job submitted since, %d jobs); fds %+d; %d requests\n' \
	$((re - r0)) $((re - r1)) "$per_job" $((je - j1)) $((fe - f0)) "$nreq"
bad=""
[ $((fe - f0)) -gt 2 ] && bad="$bad, FDS GROW"
# A job kept in memory costs a few hundred bytes: more than 2 kB per job,
# or 8 MB overall, after the first minute is a leak to look for.
if [ "$per_job" != n/a ] && awk -v p="$per_job" 'BEGIN { exit !(p > 2.0) }'; then
	bad="$bad, RSS GROWS PER JOB"
fi
[ $((re - r1)) -gt 8192 ] && bad="$bad, RSS GROWS"
bad=${bad#, }
echo "# verdict: ${bad:-no growth}"
grep -E 'out of memory|BUG|fatal|error' "$T/server.log" | head -5 | sed 's/^/# server log: /'
