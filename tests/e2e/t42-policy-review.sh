#!/bin/bash
# t42-policy-review: review and blame on a scripted history. One commit is
# applied an hour after the server started; jobs before and after it wait
# known times on the manual clock; review compares equal windows on each
# side of the moment it took effect, beside its Expected and Rollback-if.
. "$(dirname "$0")/lib.sh"

printf '[user]\n\tname = Ada Admin\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
server_start --gpus 8 || { t_report 1 "server starts"; finish; }
export GQ_POLICY_REPO="$SERVER_STATE/policy"
export EDITOR="$T_DIR/ed.sh"
printf '#!/bin/sh\nsed -i -e "s/^\\tgrace = 5m$/\\tgrace = 2m/" "$1"\n' >"$EDITOR"
chmod +x "$EDITOR"
id_of() { jq -r .id; }
state_is() { # job state: waits (bounded) until the job is in state
	for _ in $(seq 1 100); do
		[ "$("$GQ" show --json "$1" | jq -r .state)" = "$2" ] && return 0; sleep 0.05
	done
	return 1
}
# wait_round WAIT: a blocker starts at once, X waits WAIT minutes behind it,
# then both are cancelled: two starts, waits 0 and WAIT.
wait_round() {
	# The blocker ignores SIGTERM: it goes at the end of the grace period.
	blk=$("$GQ" submit --json --gpus 6 -- sh -c 'trap "" TERM; sleep 600' | id_of)
	state_is "$blk" running
	x=$("$GQ" submit --json --gpus 6 -- sleep 600 | id_of)
	"$GQ" clock "+$(($1 - 5))m" >/dev/null
	"$GQ" cancel "$blk" >/dev/null
	"$GQ" clock +5m >/dev/null # the grace period: the blocker is gone
	state_is "$blk" cancelled || echo "# job $blk was not cancelled"
	state_is "$x" running || echo "# job $x did not start"
	"$GQ" cancel "$x" >/dev/null
	"$GQ" clock +5m >/dev/null
	state_is "$x" cancelled || echo "# job $x was not cancelled"
}

t0=$("$GQ" clock --json | jq -r .now)
wait_round 35                        # before: waits 0 and 35m
"$GQ" clock "+$((60 - 40))m" >/dev/null # now t0 + 1h
"$GQ" policy edit -m "Shorter grace" --expected "P95 wait under 20m" --observe 1h \
	--rollback-if "P95 wait over 40m" >/dev/null
check "the change is applied at t0 + 1h" "$GQ" policy apply
wait_round 15                        # after: waits 0 and 15m
"$GQ" clock +2h >/dev/null

out=$("$GQ" policy review HEAD)
check_match "review names the commit" "$out" '^review of [0-9a-f]{7}: Shorter grace$'
check_match "and when it was applied" "$out" "^applied $(date -u -d "@$((t0 + 3600))" '+%Y-%m-%d %H:%M') \+0000 by admin:"
check_match "beside Expected" "$out" '^Expected: P95 wait under 20m$'
check_match "and Rollback-if" "$out" '^Rollback-if: P95 wait over 40m$'
check_match "windows of Observe's length" "$out" '^windows of 1h00m: before '
sec=$(echo "$out" | sed -n '/^queue (all), P1/,/^$/p')
check_match "starts before and after" "$sec" '^  starts +2 +2$'
check_match "P50 waits" "$sec" '^  P50 wait +0s +0s$'
check_match "P95 waits" "$sec" '^  P95 wait +35m +15m$'
check_match "and how to undo it" "$out" "^when Rollback-if holds, undo it with 'gq policy rollback [0-9a-f]{7}'$"
check_fail 2 "--applied is for Slurm: exit 2" "$GQ" policy review --applied now-1h HEAD
out=$("$GQ" policy review --window 30m HEAD)
check_match "--window overrides Observe" "$out" '^windows of 30m: before '
check_match "a half-hour window sees one start each side" \
	"$(echo "$out" | sed -n '/^queue (all), P1/,/^$/p')" '^  starts +1 +2$'
# A window reaching back before the server's start: both are cut to what
# follows it, of one length (the server clips its metrics there).
out=$("$GQ" policy review --window 2h HEAD 2>&1)
check_match "a window before the server's start: both cut to it, of one length" "$out" \
	"^windows of 1h[0-9]{2}m: before .*\(cut to the server's start\)$"
# HEAD~1 is the server's initial commit, applied at start-up: nothing
# before it to compare with.
out=$("$GQ" policy review HEAD~1 2>&1)
check_eq "the initial commit, applied at start-up: exit 1" "$?" 1
check_match "... no window before it" "$out" \
	"^gq: 'HEAD~1' took effect before the server's records begin \(.*\): there is no window before it to compare$"

printf '#!/bin/sh\nsed -i -e "s/^\\tcooldown = 10m$/\\tcooldown = 20m/" "$1"\n' >"$EDITOR"
"$GQ" policy edit -m "Longer cooldown" >/dev/null
out=$("$GQ" policy review HEAD 2>&1); rc=$?
check_eq "review of a commit never applied exits 1" "$rc" 1
check_match "and says so" "$out" "was never applied by the server; put it in force with 'gq policy apply"

out=$("$GQ" policy blame preempt.grace)
check_match "blame names the change" "$out" '^    Shorter grace$'
check_match "with its author" "$out" '^set by [0-9a-f]{7} Ada Admin <ada@example.org>'
check_match "and the value before" "$out" '^    before: 5m$'
check_match "and its trailers" "$out" '^    Rollback-if: P95 wait over 40m$'
finish
