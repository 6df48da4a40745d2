#!/bin/bash
# t53-top-zone: the server runs in Berlin, the client in New York. Every
# time gq shows is the reader's own (New York), in gq ls, gq why, gq events
# and gq top alike, and a queue's window, which is the server's wall
# clock, says so: "window 20:00-08:00 UTC+01:00".
. "$(dirname "$0")/lib.sh"
. "$T_SRC/enforce.sh"
. "$T_SRC/top-lib.sh"
trap 'tmux -S "$TMUX_SOCK" kill-server 2>/dev/null; enforce_cleanup' EXIT

TZ=Europe/Berlin policy_server '[queue "exp"]
	department = default
	window = 20:00-08:00' || { t_report 1 "server starts"; finish; }
export TZ=America/New_York

# 2030-01-15 20:30 UTC: 21:30 in Berlin (inside the window), 15:30 in New
# York. The window ends at 08:00 Berlin, 07:00 UTC, 02:00 in New York.
"$GQ" clock --set "$(date -u -d '2030-01-15 20:30' +%s)" >/dev/null
settle
j=$(sub --gpus 1 --queue exp -- $LONG)
settle
why=$("$GQ" why "$j")
check_match "gq why: paused until the window's end, in the reader's zone, the window in the server's" \
	"$why" "^Pending: window\. Queue exp is paused until Jan 16 02:00 \(window 20:00-08:00 UTC\+01:00\)\."
check_match "gq ls: the same likely start, the reader's zone" \
	"$("$GQ" ls | awk -v id="$j" '$1 == id')" " Jan 16 02:00 +window"
check_match "gq events: the submit at the reader's 15:30" \
	"$("$GQ" events | grep "#$j\b" | head -1)" "^ *[0-9]+ +2030-01-15 15:30:00 +#$j "

TOP_ENV="TZ=America/New_York" top_start 200 40 --job "$j"
check "gq top's clock is the reader's 15:30, not the server's 21:30" wait_screen '15:30:00 *$'
check "its Why is gq why's, word for word" \
	wait_screen "Queue exp is paused until Jan 16 02:00 \(window 20:00-08:00 UTC\+01:00\)\."
keys 4
check "its Events view shows the reader's 15:30 too" wait_screen "^ +[0-9]+ 15:30:00 +$j +submit "
top_stop
finish
