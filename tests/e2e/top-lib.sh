# tests/e2e/top-lib.sh - sourced by the t5x scripts after lib.sh: runs the
# real `gq top` in a detached tmux pane of its own tmux server (socket in
# the scratch directory) and reads its screen.
#
#   top_start W H [gq top args]   # starts it in session "top" (env: TOP_ENV)
#   top_stop                      # q, and waits until it has exited
#   keys KEY...                   # tmux send-keys (use -l for literal text)
#   click X Y                     # a mouse click on a cell
#   wait_screen REGEX             # ok once a line of the screen matches (10 s)
#   wait_screen_not REGEX         # ok once no line matches (10 s)
#   check_screen DESC GOLDEN      # normalised screen vs tests/e2e/golden/GOLDEN
#
# Screens are compared after normalising what moves from run to run and
# nothing else: clock times (HH:MM:SS, HH:MM), durations, the user's name, the scratch
# directory, git revisions; runs of spaces are squeezed since a duration or
# a name of another width shifts the columns after it.
command -v tmux >/dev/null || {
	echo "not ok 1 - $T_NAME: tmux is not installed (make deps installs it)"
	exit 1
}
TMUX_SOCK="$T_DIR/tmux"
trap 'tmux -S "$TMUX_SOCK" kill-server 2>/dev/null; t_cleanup' EXIT

tm() { tmux -S "$TMUX_SOCK" "$@"; }

# TOP_ENV: env(1) arguments for gq top ("-u NO_COLOR LC_ALL=C.utf8").
top_start() { # width height [args...]
	w=$1 h=$2
	shift 2
	# shellcheck disable=SC2086
	tm -f /dev/null new-session -d -s top -x "$w" -y "$h" env ${TOP_ENV:-} "$GQ" top "$@"
}

top_stop() {
	keys q
	wait_gone
}

# A left click on cell (x, y), 0-based, sent as the X10 mouse sequence a
# terminal sends (press, then release).
# Each event goes as one literal string, so that it reaches gq top in one
# write, as from a terminal.
click() {
	cxy=$(printf "\\$(printf '%03o' $((33 + $1)))\\$(printf '%03o' $((33 + $2)))")
	tm send-keys -t top -l "$(printf '\033[M ')$cxy"
	tm send-keys -t top -l "$(printf '\033[M#')$cxy"
}

# The screen with its attributes as escape sequences.
screen_escapes() { tm capture-pane -e -p -t top 2>/dev/null; }

keys() { tm send-keys -t top "$@"; }

screen_raw() { tm capture-pane -p -t top 2>/dev/null; }

normalise() {
	sed -E -e "s#$T_DIR#TMP#g" \
		-e 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/g' -e 's/\b[0-9]{2}:[0-9]{2}\b/HH:MM/g' \
		-e 's/\b[0-9a-f]{12,40}\b/REV/g' \
		-e 's/\b[0-9]+[dhms]([0-9]{2}[hms])?\b/DUR/g' \
		-e "s/\\b$(id -un)\\b/USER/g" \
		-e 's/ +/ /g' -e 's/ $//'
}

# Polls: 200 x 50 ms, a bounded wait for a state of the screen.
wait_screen() { # REGEX; WAIT_TRIES polls of 50 ms (default 200)
	for _ in $(seq 1 "${WAIT_TRIES:-200}"); do
		screen_raw | grep -Eq -- "$1" && return 0
		sleep 0.05
	done
	echo "no line matches /$1/ in:"
	screen_raw
	return 1
}

wait_screen_not() {
	for _ in $(seq 1 200); do
		screen_raw | grep -Eq -- "$1" || return 0
		sleep 0.05
	done
	echo "a line still matches /$1/ in:"
	screen_raw
	return 1
}

# The header's first line ends with the clock in the last column.
wait_screen_width() {
	for _ in $(seq 1 200); do
		[ "$(screen_raw | head -1 | awk '{print length}')" = "$1" ] && return 0
		sleep 0.05
	done
	screen_raw
	return 1
}

top_alive() { tm has-session -t top 2>/dev/null; }

wait_gone() {
	for _ in $(seq 1 200); do
		top_alive || return 0
		sleep 0.05
	done
	return 1
}

check_screen() { # desc, golden name
	screen_raw | normalise >"$T_DIR/screen.txt"
	check_golden "$1" "$T_DIR/screen.txt" "$2"
}


