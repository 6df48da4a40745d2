#!/bin/bash
# t75-ls: gq ls says what it lists: an unknown state is an error (exit 2);
# {waited} is the JSON's "waited" (the wait, not the run); an overridden
# tier is marked "*" as gq top marks it; --format ends each job's line once.
. "$(dirname "$0")/lib.sh"
server_start --gpus 4
cd "$T_DIR"
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
"$GQ" submit --gpus 2 --name first -- sleep 600 >/dev/null
check "job 1 runs" wait_state 1 running
"$GQ" clock +5m >/dev/null
"$GQ" submit --gpus 4 --name second -- sleep 600 >/dev/null
"$GQ" clock +10m >/dev/null

out=$("$GQ" ls --state nosuch 2>&1); rc=$?
check_eq "--state nosuch: exit 2" "$rc" 2
check_match "names the state and lists the known ones" "$out" "unknown state 'nosuch'; use pending, starting"
check_fail 2 "--state running,nosuch: exit 2" "$GQ" ls --state running,nosuch

check_eq "{waited}: what --json says, the running job's wait, not its run" \
	"$("$GQ" ls --format '{id}={waited}' | tr '\n' ' ')" "1=0s 2=10m "
check_eq "--json waited" "$("$GQ" ls --json | jq -c '[.[].waited]')" "[0,600]"
check_eq "{time} is still the run for a running job" "$("$GQ" ls --format '{id}={time}' | head -1)" "1=15m"

"$GQ" prio --reason 'incident 7' 2 P0 >/dev/null
check_match "an overridden tier is marked in the table" "$("$GQ" ls | grep '^ *2 ')" ' P0\* +pending '
check_match "a tier without override is not" "$("$GQ" ls | grep '^ *1 ')" ' P1 +running '
check_eq "{tier} stays the plain name" "$("$GQ" ls --format '{id}:{tier}' | tr '\n' ' ')" "1:P1 2:P0 "

check_eq "--format without \\n: one job a line" "$("$GQ" ls --format '{id}' | od -An -c | tr -s ' ')" " 1 \\n 2 \\n"
check_eq "--format ending in \\n: no blank lines" "$("$GQ" ls --format '{id}\n' | od -An -c | tr -s ' ')" " 1 \\n 2 \\n"
finish
