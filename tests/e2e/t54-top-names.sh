#!/bin/bash
# t54-top-names: gq top under tmux shows a UTF-8 job name (issue 28) whole,
# by display width: in the Queue view (wide enough to show NAME) and the
# Running view the name starts at the NAME heading's column as an ASCII
# name does, and takes the columns it should (Python's Unicode tables
# count them here, not gq's). gq top runs with LC_ALL=C.utf8: its widths
# come from gq's own table, not from the locale; ncurses needs a UTF-8
# locale to send the characters at all.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/top-lib.sh"

server_start || { t_report 1 "server starts"; finish; }
N='тест名字🚀'
"$GQ" submit --gpus 2 --name "$N" -- sleep 1000 >/dev/null
"$GQ" submit --gpus 2 --name run-ascii -- sleep 1000 >/dev/null
"$GQ" submit --gpus 8 --name "$N" -- sleep 1000 >/dev/null
"$GQ" submit --gpus 8 --name wait-ascii -- sleep 1000 >/dev/null
wait_state 1 running
wait_state 2 running

# columns FILE ASCII: the display column of the NAME heading, then of the
# name on the row of $N and on the row of ASCII, then the columns $N's row
# takes from its name on.
columns() {
	python3 -c '
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
name, ascii = sys.argv[2].encode().decode("utf-8"), sys.argv[3]
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
head = next(l for l in lines if "NAME" in l.split())
row = next(l for l in lines if name in l)
other = next(l for l in lines if ascii in l)
print(width(head[:head.index("NAME")]), width(row[:row.index(name)]),
      width(other[:other.index(ascii)]), width(row[row.index(name):].rstrip()))
' "$1" "$N" "$2"
}

TOP_ENV="LC_ALL=C.utf8" top_start 120 24 --view queue
check "the queue view shows the pending jobs" wait_screen 'wait-ascii'
check "and the UTF-8 name whole" wait_screen "$N"
screen_raw >"$T_DIR/queue.txt"
c=$(columns "$T_DIR/queue.txt" wait-ascii)
check_eq "queue view: the name starts under NAME, as an ASCII one, and takes 10 columns" \
	"$c" "$(echo "$c" | awk '{print $1, $1, $1, 10}')"

keys 2
check "2 shows the running jobs" wait_screen 'ELAPSED'
check "with the UTF-8 name whole" wait_screen "$N"
screen_raw >"$T_DIR/running.txt"
c=$(columns "$T_DIR/running.txt" run-ascii)
check_eq "running view: the name starts under NAME, as an ASCII one, and takes 10 columns" \
	"$c" "$(echo "$c" | awk '{print $1, $1, $1, 10}')"
check_match "running view: the row's columns before the name match the ASCII row's" \
	"$(grep -c -E '^ +[12] +[^ ]+ +default +P1 +2 ' "$T_DIR/running.txt")" '^2$'

top_stop
finish
