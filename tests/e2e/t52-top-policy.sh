#!/bin/bash
# t52-top-policy: gq top's Policy view follows a policy change live: the new
# revision in force, its commit with its trailers from the repository, the
# scheduler's "applied" event, and the setting that now differs from the
# default.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/top-lib.sh"

server_start || { t_report 1 "server starts"; finish; }
export GQ_POLICY_REPO="$SERVER_STATE/policy"
git config --global user.name "Ada Admin"
git config --global user.email ada@example.org

top_start 100 40 --view policy
check "the Policy view shows the revision in force" wait_screen '^Revision [0-9a-f]{40}$'
check "and the repository's first commit, in force" \
	wait_screen "^  [0-9a-f]{10} [0-9-]+ [0-9:]+ gq serve: Start the policy from gq's defaults  \(in force\)$"
check "no setting differs yet" wait_screen '^  none$'

printf '#!/bin/sh\ngit config -f "$1" aging.cap 0.6\n' >"$T_DIR/editor"
chmod +x "$T_DIR/editor"
check "an admin changes the aging cap" env EDITOR="$T_DIR/editor" "$GQ" policy edit \
	-m "raise the aging cap" --expected "P2 waits less than 10h"
"$GQ" policy apply >/dev/null 2>&1
rev=$(git -C "$GQ_POLICY_REPO" rev-parse HEAD)
check "the view follows: new revision" wait_screen "^Revision $rev$"
check "its commit is in force" \
	wait_screen "^  ${rev:0:10} [0-9-]+ [0-9:]+ Ada Admin: raise the aging cap  \(in force\)$"
check "with its Expected: trailer" wait_screen '^      Expected: P2 waits less than 10h$'
check "the scheduler's event says it applied it" wait_screen "policy +applied $rev"
check "the changed setting is listed with its default" \
	wait_screen '^  aging.cap +0.6  \(default 0.5\)$'
top_stop
finish
