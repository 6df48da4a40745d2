#!/bin/bash
# t51-top-keys: gq top's keys beyond navigation (help, sort, paging, hold and
# release, the admin override), the mouse, colours and NO_COLOR, Unicode
# bars and their ASCII fallback, and bad command lines.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/top-lib.sh"

check_fail 2 "an unknown view is a usage error" "$GQ" top --view nope
check_fail 2 "an interval of 0 is a usage error" "$GQ" top --interval 0
check_fail 2 "an operand is a usage error" "$GQ" top 42
out=$("$GQ" top </dev/null 2>&1)
check_eq "without a terminal it says so and exits 2" "$?:$out" \
	"2:gq: standard input and output are not a terminal; run 'gq top' in one, or use 'gq events --json' in scripts"

server_start || { t_report 1 "server starts"; finish; }
# One job runs on 6 of 8 slots; 30 jobs of 4 GPUs wait behind it.
"$GQ" submit --gpus 6 --tier P1 --name big -- \
	sh -c 'for i in 1 2 3; do echo "epoch $i"; done; exec sleep 1000' >/dev/null
for i in $(seq 2 31); do
	"$GQ" submit --gpus 4 --tier P2 --name "w$i" -- sleep 1000 >/dev/null
done
wait_state 1 running

# Mouse sequences typed by tmux arrive a byte at a time: under load the
# default 50 ms after Esc may not be enough to see them whole.
TOP_ENV="ESCDELAY=1000" top_start 80 24 --view queue
check "the queue is drawn" wait_screen '^ +1 +2 '
check "the position shows in the titles" wait_screen 'REASON +1/30$'
keys End
check "End goes to the last row" wait_screen 'REASON +30/30$'
keys Home PageDown
check "PgDn moves a page" wait_screen 'REASON +18/30$'
keys k
check "k moves up" wait_screen 'REASON +17/30$'
keys g
check "g goes to the first row" wait_screen 'REASON +1/30$'

keys s
check "s sorts by the next key and says which" wait_screen '^sorted by id'
keys s s s
check "and cycles through them" wait_screen '^sorted by eta'

keys '?'
check "? shows the help from the key table" wait_screen '^  Up k +move the selection up$'
keys End
check "the help scrolls to its end" wait_screen '^  q +quit$'
check "the help lists the override" wait_screen "^  p +admin: override the selected job's tier$"
keys Escape
check "Esc leaves the help" wait_screen 'WEIGHT'

keys 1 Home h
check "h asks before holding" wait_screen "^hold job 2 'w2' of $(id -un)\? y/n"
keys y
check "y holds" wait_screen '^job 2: held'
check_eq "the server has it held" "$("$GQ" show 2 --json | jq -r .held)" true
keys r y
check "r y releases" wait_screen '^job 2: released'
check_eq "the server has it released" "$("$GQ" show 2 --json | jq -r .held)" false

keys p
check "p asks for the tier" wait_screen '^override job 2: tier 0 \(P0\), 1 \(P1\), 2 \(P2\) or x to clear'
keys 1
check "then for a reason" wait_screen '^reason:'
keys -l "deadline friday"
keys Enter
check "the override is applied and said" wait_screen '^job 2: now treated as P1'
check_eq "the server records it" "$("$GQ" show 2 --json | jq -r '.override.tier // .ovr.tier // empty')" P1
check "the queue marks it with a star" wait_screen ' 2 .* P1\* '
keys p Escape
check "Esc at the tier prompt does nothing" wait_screen '^nothing done'

# The mouse: a click selects a row, a second click opens it, a click on a
# tab switches views.
click 10 6
check "a click selects the row" wait_screen 'REASON +2/30$'
# Under a slow build (ASan) a refresh can land between the two clicks;
# clicking the selected row again must still open it.
click 10 6
if ! WAIT_TRIES=60 wait_screen '^Job [0-9]+ ' >/dev/null; then
	echo "# the first click on the selection did not open the job; clicking again"
	click 10 6
fi
check "a click on the selection opens the job" wait_screen '^Job [0-9]+ '
tab=$(screen_raw | sed -n 4p | awk '{print index($0, "3 Nodes")}')
click "$tab" 3
check "a click on a tab switches to it" wait_screen '^NODE '

# The Job view of a running job ends with its log's last lines.
keys 2 Home Enter
check "Enter in the running view opens the job" wait_screen '^Job 1 +big '
check "its log tail is shown" wait_screen '^  epoch 3$'
check "with the lines before" wait_screen '^  epoch 1$'

# The Events view filters on any text of an event.
keys 4 /
keys -l override
keys Enter
check "the events filter keeps the override" wait_screen '^ +[0-9]+ [0-9:]+ +2 override '
check "and drops the rest" wait_screen_not ' submit '
top_stop

# NO_COLOR (lib.sh sets it): attributes but no colour.
top_start 80 24
check "drawn under NO_COLOR" wait_screen '^ +1 +2 '
check "NO_COLOR: no colour escapes" sh -c "! tmux -S '$TMUX_SOCK' capture-pane -e -p -t top | grep -q '\[3[1-7]m'"
check "NO_COLOR: still reverse for the selection" sh -c "tmux -S '$TMUX_SOCK' capture-pane -e -p -t top | grep -Eq '\[([0-9]+;)*7m'"
check "ASCII bars in the C locale" wait_screen '^slot +6/8 ######\.\.$'
top_stop

TOP_ENV="-u NO_COLOR LC_ALL=C.utf8"
top_start 80 24
check "drawn with colour" wait_screen '^ +1 +2 '
check "tiers are coloured" sh -c "tmux -S '$TMUX_SOCK' capture-pane -e -p -t top | grep -q '\[36mP2'"
check "Unicode bars in a UTF-8 locale" wait_screen '^slot +6/8 ██████··$'
top_stop
finish
