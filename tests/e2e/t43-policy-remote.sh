#!/bin/bash
# t43-policy-remote: gq serve following a central policy repository
# (--policy-repo URL): it clones it, fetches on every apply and at start-up, and
# puts in force what admins committed there once it is applied (a restart
# keeps the revision applied last).
. "$(dirname "$0")/lib.sh"

printf '[user]\n\tname = Ada Admin\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
central="$T_DIR/central"
export GQ_POLICY_REPO="$central"
check "init the central repository" "$GQ" policy init
server_start --gpus 8 --policy-repo "file://$central" || { t_report 1 "server starts"; finish; }
check_eq "the server cloned it" "$(ls -d "$SERVER_STATE/policy-remote" 2>&1)" "$SERVER_STATE/policy-remote"
first=$("$GQ" policy log --json 2>/dev/null | jq -r '.[0].commit')
in_force() { "$GQ" policy check --json "$first" | jq -r .impact.policy_in_force; }
check_eq "the central HEAD is in force" "$(in_force)" "$first"

printf '#!/bin/sh\nsed -i -e "s/^\\tcap = 0.5$/\\tcap = 0.4/" "$1"\n' >"$T_DIR/ed.sh"
chmod +x "$T_DIR/ed.sh"
EDITOR="$T_DIR/ed.sh" "$GQ" policy edit -m "Cap 0.4" >/dev/null
second=$("$GQ" policy log --json 2>/dev/null | jq -r '.[0].commit')
check_eq "a new commit is not in force by itself" "$(in_force)" "$first"
out=$("$GQ" policy apply 2>&1)
check_match "apply makes the server fetch and load it" "$out" "^applied ${second:0:7}: the server's policy in force is $second$"
check_eq "now it is in force" "$(in_force)" "$second"

# Committed centrally while the server is down: a restart keeps what was
# applied; apply fetches and applies the newest.
printf '#!/bin/sh\nsed -i -e "s/^\\tcap = 0.4$/\\tcap = 0.3/" "$1"\n' >"$T_DIR/ed.sh"
server_stop
EDITOR="$T_DIR/ed.sh" "$GQ" policy edit -m "Cap 0.3" >/dev/null
third=$("$GQ" policy log --json 2>/dev/null | jq -r '.[0].commit')
server_start --gpus 8 --policy-repo "file://$central" || { t_report 1 "server restarts"; finish; }
check_eq "a restart keeps the revision applied last" "$(in_force)" "$second"
out=$("$GQ" policy apply 2>&1)
check_match "apply fetches and applies the newest" "$out" "^applied ${third:0:7}"
check_eq "now it is in force" "$(in_force)" "$third"
log=$("$GQ" policy log -n 1)
check_match "log shows it was applied by the admin" "$log" '^    Applied: .* by admin:'

# A central repository that cannot be reached: a clear error from apply.
mv "$central" "$central.away"
out=$(GQ_POLICY_REPO="$central.away" "$GQ" policy apply 2>&1); rc=$?
check_eq "apply with the remote away still answers" "$rc" 0
check_match "from what the server has" "$out" "^applied ${third:0:7}"
finish
