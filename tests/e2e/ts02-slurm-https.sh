#!/bin/bash
# ts02-slurm-https.sh - gq reaches slurmrestd over https: Debian's stunnel4
# terminates TLS (a throwaway self-signed certificate) in front of the kit's
# slurmrestd. With the certificate as gq.caFile (GQ_CA_FILE) gq ls works;
# without it libcurl refuses the unknown issuer and gq says it cannot reach
# the server (exit 5). Skips without the kit, stunnel4 or openssl.
TS=ts02
. "$(dirname "$0")/slurm.sh"
command -v stunnel4 >/dev/null && command -v openssl >/dev/null ||
	slurm_skip "needs stunnel4 and openssl"
slurm_env
work=$(mktemp -d)
chmod 755 "$work"
port=${GQ_TS02_PORT:-6829}
cleanup() {
	[ -f "$work/stunnel.pid" ] && kill "$(cat "$work/stunnel.pid")" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" \
	>/dev/null 2>&1
chmod 644 "$work/cert.pem"
cat >"$work/stunnel.conf" <<EOF
pid = $work/stunnel.pid
foreground = no
[slurmrestd]
accept = 127.0.0.1:$port
connect = ${SLURM_URL#http://}
cert = $work/cert.pem
key = $work/key.pem
EOF
stunnel4 "$work/stunnel.conf" >"$work/stunnel.log" 2>&1
for _ in $(seq 50); do
	[ -f "$work/stunnel.pid" ] && break
	sleep 0.1
done
as_alice() {
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
		GQ_SERVER="https://127.0.0.1:$port" HOME="$work" PATH=/usr/bin:/bin "$@")
}
out=$(as_alice env GQ_CA_FILE="$work/cert.pem" "$GQ" nodes 2>&1)
rc=$?
if [ $rc = 0 ] && printf '%s' "$out" | grep -q "^gpu1 "; then t_report 0 "https with the CA file: gq nodes"; else
	printf '# rc %s: %s\n' "$rc" "$out"
	t_report 1 "https with the CA file: gq nodes"
fi
out=$(as_alice env GQ_CA_FILE="$work/cert.pem" "$GQ" version 2>&1)
if printf '%s' "$out" | grep -q "at 'https://127.0.0.1:$port'"; then t_report 0 "https: gq version names the https URL"; else
	printf '# %s\n' "$out"
	t_report 1 "https: gq version names the https URL"
fi
out=$(as_alice "$GQ" ls 2>&1)
rc=$?
if [ $rc = 5 ] && printf '%s' "$out" | grep -qi "certificate\|SSL"; then t_report 0 "https without the CA: refused, exit 5"; else
	printf '# rc %s: %s\n' "$rc" "$out"
	t_report 1 "https without the CA: refused, exit 5"
fi
exit $((failed > 0))
