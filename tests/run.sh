#!/bin/sh
# tests/run.sh - runs the unit tests ($UNIT) and every e2e script
# (tests/e2e/t*.sh, which use $GQ), counts TAP-like "ok"/"not ok" lines and
# ends with "N passed, N failed". Usage: run.sh [--unit-only | --slurm] [PATTERN]
# PATTERN keeps only the e2e scripts whose file name contains it. --slurm
# runs the Slurm family instead (tests/e2e/ts*-slurm*.sh, one after the
# other, against the kit of shared/slurm; they skip when it is not up).
# JOBS=N (default: the number of CPUs) runs that many e2e scripts at once;
# each script's output is still printed whole and in file-name order.
# run.sh --one NAME OUT CMD... runs one script into OUT (used by itself).
if [ "${1:-}" = --one ]; then
	shift
	name=$1 out=$2
	shift 2
	"$@" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$out"; then
		# A script that died without reporting a failure still failed.
		echo "not ok - $name exited with status $rc" >>"$out"
	fi
	: >"$out.done"
	exit 0
fi
unit_only=0
family='t[0-9]*.sh'
if [ "${1:-}" = --unit-only ]; then unit_only=1; shift; fi
if [ "${1:-}" = --slurm ]; then family='ts[0-9]*-slurm*.sh'; UNIT=; JOBS=1; shift; fi
pattern=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/all
: >"$log"
status=0

show() { # name, out
	echo "# $1"
	cat "$2"
	cat "$2" >>"$log"
}

if [ -z "$pattern" ] && [ -n "${UNIT:-}" ]; then
	sh "$0" --one unit "$work/unit" "$UNIT"
	show unit "$work/unit"
fi
if [ $unit_only = 0 ]; then
	list=$work/list
	for t in "$here"/e2e/$family; do
		[ -e "$t" ] || continue
		case "$(basename "$t")" in *"$pattern"*) echo "$t" ;; esac
	done >"$list"
	# xargs keeps $jobs scripts running; this shell prints each one's
	# output, in order, as soon as it and those before it are done.
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	while read -r t; do
		printf '%s\0%s\0%s\0' "$(basename "$t")" "$work/$(basename "$t")" "$t"
	done <"$list" | xargs -0 -n 3 -P "$jobs" sh -c 'exec sh "$0" --one "$1" "$2" bash "$3"' "$self" &
	xpid=$!
	while read -r t; do
		n=$(basename "$t")
		while [ ! -e "$work/$n.done" ]; do
			kill -0 $xpid 2>/dev/null || [ -e "$work/$n.done" ] || break
			sleep 0.2
		done
		[ -e "$work/$n.done" ] || echo "not ok - $n did not run" >>"$work/$n"
		show "$n" "$work/$n"
	done <"$list"
	wait $xpid
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
