#!/bin/bash
# t50-top: the real `gq top` under tmux against a real gq serve: the views
# at 80x24 compared with golden screens (times, durations, the user name,
# the scratch path and policy revisions normalised), filter, open a job,
# cancel it with the confirmation line, resize, lose the server and find it
# again.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/top-lib.sh"

server_start || { t_report 1 "server starts"; finish; }
# Two jobs run (6 of 8 slots); a P0 that needs all 8 waits, a P1 behind it,
# and a held one.
"$GQ" submit --gpus 4 --tier P1 --name train-a -- sleep 1000 >/dev/null
"$GQ" submit --gpus 2 --tier P2 --name explore --estimate 1h -- sleep 1000 >/dev/null
"$GQ" submit --gpus 8 --tier P0 --name urgent -- sleep 1000 >/dev/null
"$GQ" submit --gpus 4 --tier P1 --name train-b -- sleep 1000 >/dev/null
"$GQ" submit --gpus 1 --hold --name held-one -- sleep 1000 >/dev/null
wait_state 1 running
wait_state 2 running

# The client runs in a zone where it is about noon: the P0's weight rises
# within the hour, and near midnight the time of the rise would carry
# tomorrow's date and wrap the golden screen differently.
TOP_ENV="TZ=GQT$((10#$(date -u +%H) - 12))" top_start 80 24
check "the queue view shows the pending jobs" wait_screen '^ +3 +5 '
check_screen "queue view at 80x24" t50-queue.txt

keys 2
check "2 shows the running jobs" wait_screen 'ELAPSED'
check_screen "running view" t50-running.txt

keys 3
check "3 shows every GPU" wait_screen 'NODE'
check_screen "nodes view" t50-nodes.txt

keys 1 /
check "/ opens the filter line" wait_screen '^filter:'
keys -l train
keys Enter
check "the filter keeps only matching rows" wait_screen "filter 'train'"
check_screen "queue filtered by 'train'" t50-filter.txt
keys Escape
check "Esc clears the filter" wait_screen '^ +3 +5 '

keys Home Enter
check "Enter opens the selected job" wait_screen '^Job 3 '
check_screen "job view of the waiting P0" t50-job.txt

keys Escape
check "Esc goes back to the queue" wait_screen 'WEIGHT'
keys j c
check "c asks before cancelling" wait_screen "^cancel job 4 'train-b' of $(id -un)\? y/n"
keys n
check "n cancels nothing" wait_screen '^nothing done'
check_eq "job 4 still pending" "$(state 4)" pending
keys c y
check "y cancels and says so" wait_screen '^job 4: cancelled'
check_eq "job 4 is cancelled in the server" "$(state 4)" cancelled
check "the queue no longer lists it" wait_screen_not 'train-b'
keys 4
check "the events view shows the cancellation" wait_screen '4 state +pending->cancelled'

keys 1
tm resize-window -t top -x 100 -y 30
check "the screen follows a resize" wait_screen_width 100
check_screen "queue view at 100x30" t50-resized.txt
tm resize-window -t top -x 30 -y 8
check "a tiny window gets a short note, not a crash" wait_screen '^30x8, need 40x10$'
tm resize-window -t top -x 100 -y 30
check "and the views come back" wait_screen_width 100

server_stop
check "a lost server is a clear line, not a crash" wait_screen '^offline, retrying: '
check "gq top is still running" top_alive
server_start >/dev/null
check "it reconnects by itself" wait_screen '^reconnected to '
check "and shows the queue again" wait_screen '^ +2 +5 '

keys q
check "q quits" wait_gone
finish
