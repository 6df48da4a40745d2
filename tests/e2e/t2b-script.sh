#!/bin/bash
# t2b-script: a batch script runs with the interpreter of its #! line (bash,
# python3, /bin/sh without one), from a copy of its text kept at submit,
# with the arguments given after it as $1...; gq show names the
# interpreter and prints the script's first lines.
. "$(dirname "$0")/lib.sh"
server_start --gpus 2
cd "$T_DIR"
jid() { sed -n 's/^submitted job \([0-9]*\).*/\1/p'; }

cat >"$T_DIR/arrays.sh" <<'SCRIPT'
#!/bin/bash
a=(x y z)
echo "bash ${#a[@]} ${a[1]} [$1] [$2] $#"
SCRIPT
id=$("$GQ" submit arrays.sh 'one two' 2 | jid)
check "a #!/bin/bash script with an array and two arguments runs" wait_state "$id" completed
check_eq "with bash, and its arguments as \$1 \$2" "$("$GQ" logs "$id")" "bash 3 y [one two] [2] 2"
check_eq "gq show --json keeps its text and its arguments" \
	"$("$GQ" show --json "$id" | jq -c '[.argv, .args, (.script | split("\n")[0])]')" \
	'[null,["one two","2"],"#!/bin/bash"]'

cat >"$T_DIR/py.py" <<'SCRIPT'
#!/usr/bin/env python3
import sys
print("python", sys.argv[1:], sys.argv[0].endswith("/script"))
SCRIPT
id=$("$GQ" submit py.py a | jid)
check "a #!/usr/bin/env python3 script runs" wait_state "$id" completed
check_eq "with python3" "$("$GQ" logs "$id")" "python ['a'] True"

printf 'echo "sh [$1] $0"\n' >"$T_DIR/plain.sh"
out=$("$GQ" submit plain.sh arg 2>&1 >/dev/null)
check_eq "a script without #! gets one warning" "$out" \
	"gq: warning: script 'plain.sh' has no #! line; it will run with /bin/sh"
id=$("$GQ" submit plain.sh arg 2>/dev/null | jid)
check "and runs" wait_state "$id" completed
check_match "with /bin/sh, from its copy in the job's spool" "$("$GQ" logs "$id")" \
	"^sh \\[arg\\] $T_DIR/state/jobs/$id/script\$"

# The text at submit is what runs: editing the file later changes nothing.
printf '#!/bin/sh\necho first\n' >"$T_DIR/edit.sh"
id=$("$GQ" submit --hold edit.sh | jid)
printf '#!/bin/sh\necho second\n' >"$T_DIR/edit.sh"
"$GQ" release "$id" >/dev/null
check "an edited script's job runs" wait_state "$id" completed
check_eq "the text it was submitted with" "$("$GQ" logs "$id")" "first"

# gq show: the interpreter and the first lines, not the whole text.
{ printf '#!/bin/bash\n#GQ --hold\n'; for i in 1 2 3 4 5 6; do echo "echo $i"; done; } >"$T_DIR/long.sh"
id=$("$GQ" submit long.sh x 'y z' | jid)
check_eq "gq show: the interpreter, the arguments and 5 lines" \
	"$("$GQ" show "$id" | sed -n '/^command/,$p' | grep -v '^directory')" \
	"command      a script run by /bin/bash, arguments x 'y z'
script       #!/bin/bash
             #GQ --hold
             echo 1
             echo 2
             echo 3
             (3 more lines; the whole script: gq show --json $id)"
"$GQ" cancel "$id" >/dev/null
finish
