#!/bin/bash
# t93-attack-script: a batch script's copy in the job's spool directory,
# on a root gq serve, as a second local user: the file is the user's
# (written after the supervisor's child became the user), and a symlink
# the user plants at its place makes nobody write through it.
# Needs root: it creates a user, and removes it at exit.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then echo "ok 1 - t93-attack-script # skip needs root (creates users)"; exit 0; fi
UA=gqt93a$$
users_cleanup() {
	t_cleanup
	userdel "$UA" 2>/dev/null
}
trap users_cleanup EXIT
useradd -M -N -g users -s /bin/sh "$UA"
chmod 755 "$T_DIR"
HA="$T_DIR/home-a"
mkdir -p "$HA"
chown "$UA:users" "$HA"
chmod 700 "$HA"
echo ROOTSECRET >"$T_DIR/rootfile"
chmod 600 "$T_DIR/rootfile"
sum0=$(sha256sum <"$T_DIR/rootfile")
server_start --gpus 2

as() { # CMD...: CMD as user A, with its own HOME, talking to our server
	setpriv --reuid "$UA" --regid users --init-groups env -u XDG_RUNTIME_DIR -u XDG_STATE_HOME \
		-u XDG_CONFIG_HOME HOME="$HA" GQ_SERVER="unix:$SERVER_SOCK" "$@"
}
jid() { sed -n 's/^submitted job \([0-9]*\).*/\1/p'; }

# Its first run plants a link to root's file at the script's place, then
# the job is requeued: the second start must not write through it.
cat >"$HA/plant.sh" <<SCRIPT
#!/bin/bash
a=(ok)
echo "run \${a[0]} \$(id -un)"
d=\$(dirname "\$GQ_CHECKPOINT_DIR")
stat -c '%U %a' "\$d/script"
rm -f "\$d/script"
ln -s $T_DIR/rootfile "\$d/script"
SCRIPT
chown "$UA:users" "$HA/plant.sh"
id=$(cd "$HA" && as "$GQ" submit plant.sh | jid)
check "A's script runs" wait_state "$id" completed
check_eq "as A, with bash; its copy in the spool is A's, mode 700" "$(as "$GQ" logs "$id")" \
	"run ok $UA
$UA 700"
check "A requeues it" as "$GQ" requeue "$id"
check "its second start fails" wait_state "$id" failed
check_match "on the link, as A's log says" "$(as "$GQ" logs --stderr "$id")" \
	"cannot write the script to '.*/jobs/$id/script': Too many levels of symbolic links"
check_eq "root's file is unchanged" "$(sha256sum <"$T_DIR/rootfile")" "$sum0"
check_eq "and still root's, mode 600" "$(stat -c '%U %a' "$T_DIR/rootfile")" "root 600"
finish
