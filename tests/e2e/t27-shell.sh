#!/bin/bash
# t27-shell: gq shell driven through a pseudo-terminal (tmux): commands
# run, Tab completes commands and job ids, errors keep the shell alive,
# history is saved in XDG_STATE_HOME/gq/history.
. "$(dirname "$0")/lib.sh"
server_start --gpus 4
"$GQ" submit --hold --name waiting -- true >/dev/null # job 1
TM="tmux -S $T_DIR/tmux.sock"
$TM -f /dev/null new-session -d -x 120 -y 40 \
	"env GQ_SERVER='$GQ_SERVER' HOME='$HOME' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' NO_COLOR=1 TERM=xterm '$GQ' shell; echo SHELL-EXIT=\$?; sleep 30"
screen() { $TM capture-pane -p -t 0 | sed 's/ *$//'; }
wait_screen() { # REGEX: a short poll until the screen matches
	for _ in $(seq 1 100); do screen | grep -Eq -- "$1" && return 0; sleep 0.05; done
	return 1
}
check "the prompt appears" wait_screen '^gq>$'
$TM send-keys -t 0 'show --json 1 | jq' Enter
check "an error keeps the shell alive" wait_screen "^gq show: one job at a time; '\\|' is extra"
$TM send-keys -t 0 'ls --format "{id} {name} {reason}"' Enter
check "a command runs" wait_screen '^1 waiting held$'
$TM send-keys -t 0 'rel' Tab
check "Tab completes a command" wait_screen '^gq> release$'
$TM send-keys -t 0 Tab
check "Tab completes a job id" wait_screen '^gq> release 1$'
$TM send-keys -t 0 Enter
check "the command runs" wait_screen '^released job 1$'
$TM send-keys -t 0 'logs --f' Tab
check "Tab completes a flag" wait_screen '^gq> logs --follow$'
$TM send-keys -t 0 C-u 'nosuch' Enter
check "an unknown command is an error, not an exit" wait_screen "^gq: 'nosuch' is not a gq command; type 'help' for the list$"
$TM send-keys -t 0 'exit' Enter
check "exit leaves with the last status" wait_screen '^SHELL-EXIT=2$'
check_eq "history is saved" "$(cat "$XDG_STATE_HOME/gq/history")" 'show --json 1 | jq
ls --format "{id} {name} {reason}"
release 1
nosuch
exit'
$TM kill-server
finish
