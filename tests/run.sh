#!/bin/sh
# tests/run.sh - runs the unit tests ($UNIT) and every e2e script
# (tests/e2e/t*.sh, which use $GQ), counts TAP-like "ok"/"not ok" lines and
# ends with "N passed, N failed". Usage: run.sh [--unit-only | --slurm] [PATTERN]
# PATTERN keeps only the e2e scripts whose file name contains it. --slurm
# runs the Slurm family instead (tests/e2e/ts*-slurm.sh, one after the
# other, against the kit of shared/slurm; they skip when it is not up).
unit_only=0
family='t[0-9]*.sh'
if [ "${1:-}" = --unit-only ]; then unit_only=1; shift; fi
if [ "${1:-}" = --slurm ]; then family='ts[0-9]*-slurm.sh'; UNIT=; shift; fi
pattern=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

run_one() { # name, command...
	name=$1; shift
	echo "# $name"
	"$@" >"$log.out" 2>&1
	rc=$?
	cat "$log.out"
	cat "$log.out" >>"$log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log.out"; then
		# A script that died without reporting a failure still failed.
		echo "not ok - $name exited with status $rc" | tee -a "$log"
	fi
	rm -f "$log.out"
}

if [ -z "$pattern" ] && [ -n "${UNIT:-}" ]; then
	run_one unit "$UNIT"
fi
if [ $unit_only = 0 ]; then
	for t in "$here"/e2e/$family; do
		[ -e "$t" ] || continue
		case "$(basename "$t")" in *"$pattern"*) ;; *) continue ;; esac
		run_one "$(basename "$t")" bash "$t"
	done
fi
passed=$(grep -c '^ok' "$log")
failed=$(grep -c '^not ok' "$log")
if [ "$failed" -gt 0 ]; then
	echo "# failures:"
	grep '^not ok' "$log" | sed 's/^/#   /'
	status=1
fi
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
	echo "no test ran"; status=1
fi
echo "$passed passed, $failed failed"
exit $status
