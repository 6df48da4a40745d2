#!/bin/bash
# t76-eta: gq eta's columns hold whatever they say (a range that crosses
# midnight carries a date, a "never" says why at length): every row's WAIT
# starts under its heading; a job whose queue is paused waits for the
# window's end, and says so, not "after #N".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[queue "exp"]
	department = default
	window = 20:00-08:00'
"$GQ" clock --set "2030-01-01 22:00" >/dev/null
f=$(sub --gpus 1 -- false)
check "a job fails" wait_state "$f" failed
r=$(sub --gpus 8 --time 2h30m --estimate 1h -- $LONG)
check "a job of the default queue runs" wait_state "$r" running
e=$(sub --gpus 8 --time 2h --queue exp -- $LONG)
h=$(sub --gpus 1 --hold -- true)
d=$(sub --gpus 1 --after "$h" -- true)
q=$(sub --gpus 8 --time 2h -- $LONG)
out=$("$GQ" eta)
echo "$out" | sed 's/^/# /'
col=$(echo "$out" | head -1 | awk '{print index($0, " WAIT ")}')
check_eq "every row's WAIT under its heading" \
	"$(echo "$out" | tail -n +2 | awk -v c="$col" '{w = substr($0, c, 4); if (w != " in " && w != " -  " && w != " -") print "row " $1 ": [" w "]"}')" ""
check_match "the window job: when its window ends" "$(echo "$out" | grep "^ *$e ")" \
	"when queue exp's window ends \(Jan 02 08:00\)$"
check_match "the dependency that never starts: never, said whole" "$(echo "$out" | grep "^ *$d ")" \
	"never: a job it waits for never starts +-$"
check_match "the job after the running one" "$(echo "$out" | grep "^ *$q ")" "in [0-9hm]+ +after #$r"
check_match "its range crosses midnight, whole" "$(echo "$out" | grep "^ *$q ")" \
	'^ +[0-9]+  P1   [0-9:]{5} \(range [0-9:]{5}-Jan 02 [0-9:]{5}\) +in '
finish
