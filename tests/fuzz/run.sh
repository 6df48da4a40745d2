#!/bin/sh
# tests/fuzz/run.sh BIN_DIR OUT_DIR SECONDS TARGET... - runs each libFuzzer
# target for SECONDS over its committed seeds (tests/fuzz/corpus/TARGET/).
# New inputs go to OUT_DIR/corpus/TARGET/ (never into the repository),
# crashes, leaks and hangs to OUT_DIR/crashes/, each run's log to
# OUT_DIR/TARGET.log, the targets' temporary files to OUT_DIR/tmp/.
# Prints one TAP line per target,
# "ok N - fuzz: TARGET (E executions)", then a figures line
# "# TARGET: E executions, R exec/s, cov C, ft F, corpus K, load L" (what
# bench/README.md tabulates; L is the 1-minute load average at the end).
# With FUZZ_RUNS=N in the environment each target stops after N
# executions instead (SECONDS 0: no time limit). Exits 1 when a target
# failed.
#
# The targets' own stderr is closed (-close_fd_mask=2: the #GQ parser
# prints every refusal, as gq submit does); libFuzzer's and the
# sanitizers' reports still come through. On a failure the crashing
# input is run once more with stderr open, for the invariant's message.
set -u
bin=$1 out=$2 secs=$3
shift 3
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/crashes"
out=$(cd "$out" && pwd) # absolute: the config target's XDG_CONFIG_HOME must be
n=0 failed=0
for t in "$@"; do
	n=$((n + 1))
	mkdir -p "$out/corpus/$t" "$out/tmp"
	log="$out/$t.log"
	seeds="$src/corpus/$t"
	[ -d "$seeds" ] || seeds=
	# -rss_limit_mb: the snapshot target's biggest legitimate tree is
	# tens of MB; anything near 2 GB is a bug.
	TMPDIR=$out/tmp "$bin/$t" -max_total_time="$secs" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
		-print_final_stats=1 -artifact_prefix="$out/crashes/$t-" \
		"$out/corpus/$t" $seeds >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	if [ "$rc" = 0 ] && [ -n "$execs" ]; then
		echo "ok $n - fuzz: $t (${execs} executions)"
	else
		failed=$((failed + 1))
		echo "not ok $n - fuzz: $t (${execs:-0} executions, exit $rc)"
		grep -E 'ERROR|SUMMARY|fuzz: |^    #[0-9]' "$log" | head -20 | sed 's/^/#   /'
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
		if [ -n "$art" ] && [ -f "$art" ]; then
			echo "#   input: $art"
			TMPDIR=$out/tmp "$bin/$t" "$art" 2>&1 | grep -E '^fuzz: ' | head -5 | sed 's/^/#   /'
		fi
	fi
	load=$(cut -d' ' -f1 /proc/loadavg)
	echo "# $t: ${execs:-0} executions, ${rate:-0} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, load $load"
done
[ "$failed" = 0 ]
