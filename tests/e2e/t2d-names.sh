#!/bin/bash
# t2d-names: a job's name is UTF-8 text (issue 28). A name of Cyrillic, CJK
# and an emoji is accepted and kept byte for byte (gq show --json, gq ls
# --json), shown by gq show, and laid out by display width in gq ls (the
# columns after it start where an ASCII name's do, a long one is cut at a
# whole character); a name with a newline is refused in one line, exit 2, as
# is one that is not UTF-8, on the command line and through the API; a
# script's default name is its file name as given. All under LC_ALL=C.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
server_start || { t_report 1 "server starts"; finish; }

N='тест名字🚀'
LONG='a名字名字名字名字名字'
check_eq "a UTF-8 name is accepted" "$("$GQ" submit --hold --name "$N" -- true 2>&1)" \
	"submitted job 1"
"$GQ" submit --hold --name ascii-name -- true >/dev/null
"$GQ" submit --hold --name "$LONG" -- true >/dev/null
check_eq "gq show --json keeps its bytes" "$("$GQ" show --json 1 | jq -r .name)" "$N"
check_eq "gq ls --json keeps its bytes" "$("$GQ" ls --json | jq -r '.[] | select(.id == 1) | .name')" "$N"
check_match "gq show shows it" "$("$GQ" show 1)" "^name +$N\$"

# Display columns, counted by Python's Unicode tables (not gq's): where
# each line's QUEUE field starts, and the NAME cell of job 3.
"$GQ" ls >"$T_DIR/ls.txt"
cols=$(python3 -c '
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], "rb").read().decode("utf-8", "replace").splitlines()
print(width(lines[0][:lines[0].index("QUEUE")]), end="")
for l in lines[1:]:
    print(" %s" % width(l[:l.index(" default ") + 1]), end="")
print()
' "$T_DIR/ls.txt")
check_eq "gq ls: the QUEUE column starts at one display column on every row" "$cols" \
	"36 36 36 36"
check_match "gq ls: the UTF-8 name padded by columns" "$(grep '^ *1 ' "$T_DIR/ls.txt")" \
	"^ +1  $(id -un) +$N {6} default "
check_match "gq ls: a long name cut at a whole character" "$(grep '^ *3 ' "$T_DIR/ls.txt")" \
	"^ +3  $(id -un) +a名字名字名字名  default "

check_eq "gq update takes a UTF-8 name" "$("$GQ" update 2 --name '训练 второй' 2>&1)" "updated job 2"
check_eq "and keeps it" "$("$GQ" show --json 2 | jq -r .name)" "训练 второй"

nl=$(printf 'a\nb')
check_fail 2 "a name with a newline: exit 2" "$GQ" submit --name "$nl" -- true
check_eq "in one line, the newline escaped" "$("$GQ" submit --name "$nl" -- true 2>&1)" \
	"gq submit: --name: job name 'a\\nb' has a control character; give a name without one; see 'gq submit -h'"
c1=$(printf 'a\302\205b')
check_eq "a C1 control (U+0085) too" "$("$GQ" submit --name "$c1" -- true 2>&1)" \
	"gq submit: --name: job name 'a\\u0085b' has a control character; give a name without one; see 'gq submit -h'"
bad=$(printf 'a\377b')
check_fail 2 "a name that is not UTF-8: exit 2" "$GQ" submit --name "$bad" -- true
check_eq "said so, the byte escaped" "$("$GQ" submit --name "$bad" -- true 2>&1)" \
	"gq submit: --name: job name 'a\\xffb' is not valid UTF-8 (byte 2); give it as UTF-8 text; see 'gq submit -h'"
sur=$(printf '\355\240\200')
check_fail 2 "an encoded surrogate (U+D800): exit 2" "$GQ" submit --name "$sur" -- true
check_fail 2 "64 bytes: exit 2" "$GQ" submit --name "$(printf '名%.0s' $(seq 21))x" -- true
check_eq "63 bytes are accepted" "$("$GQ" submit --hold --name "$(printf '名%.0s' $(seq 21))" -- true)" \
	"submitted job 4"
check_eq "the API refuses a newline in one line" \
	"$(api_code POST /v1/jobs '{"argv":["x"],"name":"a\nb"}' | { read -r st body; echo "$st $(echo "$body" | jq -r .error.message)"; })" \
	"400 job name 'a\\nb' has a control character; give a name without one"
check_eq "the API takes a UTF-8 name" \
	"$(api_code POST /v1/jobs '{"argv":["true"],"name":"名字","held":true}' | { read -r st body; echo "$st $(echo "$body" | jq -r .id)"; })" \
	"201 5"

printf '#!/bin/sh\ntrue\n' >"$T_DIR/训练 job.sh"
(cd "$T_DIR" && "$GQ" submit --hold './训练 job.sh' >/dev/null)
check_eq "a script's default name is its file name as given" "$("$GQ" show --json 6 | jq -r .name)" \
	"训练 job.sh"
finish
