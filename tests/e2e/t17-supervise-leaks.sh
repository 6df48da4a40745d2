#!/bin/bash
# t17: the job supervisor (gq __supervise) frees what it allocated before
# it exits, whatever the job's end: a sanitized build (make SANITIZE=1)
# reports nothing from LeakSanitizer. The supervisors' stderr is
# /dev/null, so the reports go to files (ASAN_OPTIONS log_path) given to
# the server only, and through it to the supervisors it starts. Without
# a sanitized gq there is nothing to look at: the test says so and skips.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
if ! ldd "$GQ" 2>/dev/null | grep -q libasan; then
	t_report 0 "# skip: '$GQ' is not a sanitized build (make SANITIZE=1 check T=t17)"
	finish
fi
saved=${ASAN_OPTIONS-}
export ASAN_OPTIONS="${saved:+$saved:}detect_leaks=1:log_path=$T_DIR/lsan"
server_start --gpus 4
export ASAN_OPTIONS=$saved

ok=$(sub -- true)
bad=$(sub -- sh -c 'echo out; echo err >&2; exit 3')
missing=$(sub -- /nonexistent/gq-t17)
long=$(sub -- $LONG)
check "a job that succeeds completes" wait_state "$ok" completed
check "a job that fails fails" wait_state "$bad" failed
check "a command that cannot run fails" wait_state "$missing" failed
check "a long job runs" wait_state "$long" running
"$GQ" cancel "$long" >/dev/null
check "and is cancelled (its supervisor forwards the signal)" wait_state "$long" cancelled
# A supervisor writes the exit status and then returns: wait until every
# one of them is gone, so that LeakSanitizer has had its say.
for _ in $(seq 1 100); do
	pgrep -f "__supervise $SERVER_STATE/run/" >/dev/null || break
	sleep 0.05
done
check_eq "no supervisor is left" "$(pgrep -f "__supervise $SERVER_STATE/run/")" ""
check_eq "LeakSanitizer reports nothing from the supervisors" \
	"$(cat "$T_DIR"/lsan.* 2>/dev/null | grep -E '^(Direct|Indirect) leak|^SUMMARY|in runner_supervise')" ""
finish
