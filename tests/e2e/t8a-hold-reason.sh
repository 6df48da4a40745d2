#!/bin/bash
# t8a: a reason on hold. gq hold --reason TEXT keeps the text with the hold
# (by one id or by the bulk selectors): gq why and gq show say who, when
# and why, --json carries it, it survives a restart of the server, and a
# release clears it. A reason that is not one line of text, or too long,
# is refused and holds nothing.
# shellcheck disable=SC2086 # $LONG is a command line
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0'
"$GQ" clock --set '2030-01-01 14:02' >/dev/null
me=$(id -un)
a=$(sub --gpus 8 -- $LONG)
check "a holds every GPU" wait_state "$a" running
b=$(sub --name prep -- true)
c=$(sub --name sweep -- true)
d=$(sub --name sweep -- true)

check_eq "hold --reason says it held the job" "$("$GQ" hold --reason 'waiting for the dataset' "$b")" "held job $b"
check_match "why says who, when and why" "$("$GQ" why "$b")" \
	"^Pending: held; also resources\. Held by $me at 14:02: waiting for the dataset\."
check_match "show says it too" "$("$GQ" show "$b")" "held +by $me at 14:02: waiting for the dataset$"
check_eq "show --json carries the text" "$("$GQ" show --json "$b" | jq -r .held_reason)" "waiting for the dataset"
check_eq "so does the API's job" "$(field "$b" '[.held, .held_by, .held_reason] | @tsv')" \
	"true	$me	waiting for the dataset"

check_eq "the bulk selectors take a reason too" "$("$GQ" hold --name sweep --yes --reason 'after the deadline')" \
	"held job $c
held job $d"
check_eq "each selected job keeps it" "$(field "$c" .held_reason) $(field "$d" .held_reason)" \
	"after the deadline after the deadline"
check_eq "a hold without --reason keeps none" \
	"$("$GQ" release "$d" >/dev/null; "$GQ" hold "$d" >/dev/null; field "$d" .held_reason)" ""

server_stop
server_start --policy-repo "$P_REPO" --gpus 8
check_eq "the reason survives a restart (journalled)" "$(field "$b" .held_reason)" "waiting for the dataset"

check_eq "release clears it" "$("$GQ" release "$b" >/dev/null; field "$b" '[.held, .held_reason] | @tsv')" \
	"false	"
check_fail 2 "a reason with a newline is refused" "$GQ" hold --reason "$(printf 'two\nlines')" "$b"
check_eq "with a clear message, and nothing held" \
	"$("$GQ" hold --reason "$(printf 'two\nlines')" "$b" 2>&1; field "$b" .held)" \
	"gq: hold reason has a control character; give one line of text
false"
check_fail 2 "a reason over 127 bytes is refused" "$GQ" hold --reason "$(printf '%0200d' 0)" "$b"
check_match "saying the most" "$("$GQ" hold --reason "$(printf '%0200d' 0)" "$b" 2>&1)" \
	"^gq: hold reason is too long \(200 bytes\); give at most 127$"
check_fail 2 "cancel takes no --reason" "$GQ" cancel --reason x "$b"
check_fail 2 "the API refuses a reason that is not a string" \
	sh -c "curl -sf --unix-socket '$SERVER_SOCK' -X POST --data-binary '{\"reason\":3}' http://gq/v1/jobs/$b/hold >/dev/null || exit 2"
finish
