#!/bin/bash
# t94-binary-replaced: gq serve starts each job's supervisor from its own
# binary, not from the file at its path: a gq replaced there while it runs
# (a package upgrade renames the new one into place; make rewrites it)
# must not start supervisors of another version, nor fail to start them.
# Here the file becomes a script that exits 1.
. "$(dirname "$0")/lib.sh"
cp "$GQ" "$T_DIR/gq"
GQ_REAL=$GQ
GQ=$T_DIR/gq
server_start --gpus 1
GQ=$GQ_REAL
a=$("$GQ" submit --gpus 0 -- true | sed -n 's/^submitted job //p')
check "a job runs" wait_state "$a" completed
printf '#!/bin/sh\nexit 1\n' >"$T_DIR/gq.new"
chmod 755 "$T_DIR/gq.new"
mv "$T_DIR/gq.new" "$T_DIR/gq"
b=$("$GQ" submit --gpus 0 -- sh -c 'echo ran' | sed -n 's/^submitted job //p')
check "with the binary replaced at its path, the next job runs too" wait_state "$b" completed
check_eq "... its output is there" "$("$GQ" logs "$b")" "ran"
check_eq "the server log has no supervisor that did not start" \
	"$(grep -c 'did not start' "$T_DIR/server.log")" 0
finish
