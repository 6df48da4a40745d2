#!/bin/sh
# bench/run.sh - runs every benchmark whose name contains PATTERN (all when
# none): the C ones built as $BUILD/bench/NAME, then the bench/*.sh scripts
# (which drive the real $GQ). Each prints its own figures; nothing here is
# a pass/fail test. Usage: run.sh [PATTERN]
pattern=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
for src in "$here"/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	case "$name" in *"$pattern"*) ;; *) continue ;; esac
	echo "# bench $name"
	"$BUILD/bench/$name"
done
for sh in "$here"/*.sh; do
	name=$(basename "$sh" .sh)
	[ "$name" = run ] && continue
	case "$name" in *"$pattern"*) ;; *) continue ;; esac
	echo "# bench $name"
	GQ="$GQ" sh "$sh"
done
