#!/usr/bin/env python3
"""tests/torture/torture.py - the crash torture of gq serve (issue 11).

Each iteration runs the real `gq serve` (manual clock, GPU slots, a policy
under which P0 and P1 work preempts checkpointable P2 jobs with a grace
period) under the load of 8 client threads that submit (each submission
with its own Idempotency-Key, retried with that key until it is answered),
cancel, hold, release and query, while jobs end by themselves, get
preempted (some save with `gq checkpoint` on SIGTERM, some ignore it and
are killed when the grace period ends), time out, and an admin moves the
clock. At a random instant it kills the server with SIGKILL, starts it
again on the same state directory and checks what DESIGN.md section 10
promises:

  lost            an acknowledged submission is not there with its id
  duplicated      a submission exists twice, or one key was acknowledged
                  with two ids
  started_twice   a job ran twice at the same time (a lock the job itself
                  holds while it runs), ran the same run twice (its
                  GQ_RESTART_COUNT seen twice), or an event started it
                  while it was not pending
  gpu_overlap     two jobs held one GPU at one time: in a snapshot, or in
                  the kernel (each job holds a lock per GPU it was given)
  restart_failed  a restart that did not come up and answer ping, `gq ls`,
                  `gq why` on a pending job and `gq top` (under tmux)
  failed_unrun    a job failed without having run (that run of it left no
                  record): a kill between its journalled start and its
                  process must leave it pending, not failed
  server_died     the server had exited before the torture killed it
  nonfinite       NaN or infinity in a snapshot (both forms) or anywhere
                  in the SQLite journal
  log_alarms      "out of memory", "BUG", "fatal" or a sanitizer report in
                  the server's log
  events_lost     an event a client had read is gone, or changed, after
                  the restart

Jobs record what they see in files of the scratch directory, so the checks
do not take the server's word for what ran. The counts are of distinct
findings (a job lost stays one finding however many restarts see it).
With --self-test, each check is then run once more on inputs with a fault
injected, and must report it: a check that cannot fail fails the run.

It is not a benchmark (bench/soak.sh is the long run) and not a test of
the server's answers beyond the promises above.

Usage: torture.py [--iterations N] [--seed S] [--gq PATH] [--gpus N]
                  [--clients N] [--keep] [--self-test]
Prints a line per iteration and the counts at the end ("count NAME N");
exits 0 when every count is 0, 1 otherwise, 2 when it cannot set up.
"""

import argparse
import http.client
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

CHECKS = ["lost", "duplicated", "started_twice", "gpu_overlap", "restart_failed",
          "failed_unrun", "server_died", "nonfinite", "log_alarms", "events_lost"]
# Reported, not failing: what the torture noticed that no promise covers.
NOTES = ["times_out_of_order", "transition_breaks", "http_5xx", "submit_refused",
         "unanswered_submissions"]

POLICY = """[headroom]
\tshare = 0
[preempt]
\tprotect = 300d
\tgrace = 2m
\tcooldown = 1m
\tmaxPerQueueHour = 1000
"""

NONFINITE_TEXT = re.compile(r"(?i)(?<![a-z_])[-+]?(nan|inf|infinity)(?![a-z_])")
LOG_ALARM = re.compile(r"out of memory|\bBUG\b|fatal|AddressSanitizer|runtime error|LeakSanitizer")
ACTIVE = ("starting", "running", "stopping")


class UnixConn(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("gq", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


def api(sock, method, path, body=None, headers=None, timeout=10.0):
    """One request on a new connection: (status, body bytes, response).
    Raises OSError or http.client.HTTPException when there is no answer."""
    c = UnixConn(sock, timeout)
    try:
        hdrs = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        c.request(method, path, body=data, headers=hdrs)
        r = c.getresponse()
        return r.status, r.read(), r
    finally:
        c.close()


def api_json(sock, method, path, body=None, timeout=10.0):
    st, data, _ = api(sock, method, path, body, timeout=timeout)
    if st != 200:
        raise RuntimeError("%s %s: %d %s" % (method, path, st, data[:200]))
    return json.loads(data)


class Findings:
    """Distinct findings per check, with the first few described."""

    def __init__(self, quiet=False):
        self.keys = {c: set() for c in CHECKS + NOTES}
        self.lock = threading.Lock()
        self.quiet = quiet

    def add(self, check, key, desc):
        with self.lock:
            if key in self.keys[check]:
                return False
            self.keys[check].add(key)
            n = len(self.keys[check])
        if self.quiet:
            return True
        if n <= 5:
            print("# FOUND %s: %s" % (check, desc), flush=True)
        elif n == 6:
            print("# FOUND %s: (more; only counted from here)" % check, flush=True)
        return True

    def count(self, check):
        return len(self.keys[check])


class Torture:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.rng = random.Random(self.seed)
        self.gq = os.path.abspath(args.gq)
        self.t = tempfile.mkdtemp(prefix="gqx.", dir="/tmp")
        self.sock = os.path.join(self.t, "sock")
        self.state = os.path.join(self.t, "state")
        self.log = os.path.join(self.t, "server.log")
        self.rec = os.path.join(self.t, "rec")
        self.found = Findings()
        self.lock = threading.Lock()
        self.acked = {}  # key -> id
        self.doubt = {}  # key -> body, sent but not answered
        self.mine = {}  # client -> [job ids]
        self.seen_events = {}  # seq -> event, as a client read it
        self.events_done = 0  # events checked up to this seq
        self.job_state = {}  # job -> state, from the events
        self.rec_offsets = {}
        self.log_offset = 0
        self.server = None
        self.kills = 0
        self.restarts = 0
        self.loads = []
        self.stop = threading.Event()
        self.http5xx = 0
        self.env = self.make_env()

    # ---- setup -------------------------------------------------------
    def make_env(self):
        home = os.path.join(self.t, "home")
        run = os.path.join(self.t, "run")
        for d in (home, run, self.rec, os.path.join(self.t, "locks")):
            os.makedirs(d, exist_ok=True)
        os.chmod(run, 0o700)
        env = dict(os.environ)
        for k in ("GQ_TOKEN_FILE", "GQ_BACKEND"):
            env.pop(k, None)
        env.update(HOME=home, XDG_CONFIG_HOME=home + "/.config",
                   XDG_STATE_HOME=home + "/.local/state", XDG_RUNTIME_DIR=run,
                   TZ="UTC", LC_ALL="C", NO_COLOR="1", GQ_SERVER="unix:" + self.sock)
        return env

    def make_policy(self):
        repo = os.path.join(self.t, "policy")
        os.makedirs(repo)
        with open(os.path.join(repo, "policy.conf"), "w") as f:
            f.write(POLICY)
        g = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.org"]
        subprocess.run(["git", "-C", repo, "init", "-q"], check=True)
        subprocess.run(g + ["add", "policy.conf"], check=True)
        subprocess.run(g + ["commit", "-qm", "torture policy"], check=True)
        return repo

    # ---- the server --------------------------------------------------
    def start_server(self, kill_at_start=False):
        """Starts gq serve and waits for its ping; with kill_at_start, one
        that SIGKILLs itself at the first job start, between the journalled
        start and the supervisor's fork (GQ_TEST_KILL_BEFORE_FORK), not
        waited for."""
        env = dict(self.env, GQ_TEST_KILL_BEFORE_FORK="1") if kill_at_start else self.env
        with open(self.log, "ab") as lf:
            self.server = subprocess.Popen(
                [self.gq, "serve", "--listen", "unix:" + self.sock, "--state-dir", self.state,
                 "--manual-clock", "--gpus", str(self.args.gpus), "--policy-repo", self.policy],
                stdout=lf, stderr=lf, env=env, start_new_session=True)
        if kill_at_start:
            return True
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                st, _, _ = api(self.sock, "GET", "/v1/ping", timeout=2)
                if st == 200:
                    return True
            except (OSError, http.client.HTTPException):
                pass
            if self.server.poll() is not None:
                return False
            time.sleep(0.02)
        return False

    def server_alive(self):
        return self.server is not None and self.server.poll() is None

    def mark_log(self, text):
        with open(self.log, "a") as f:
            f.write("=== torture: %s\n" % text)

    def cli(self, *argv, timeout=20):
        try:
            p = subprocess.run([self.gq] + list(argv), env=self.env, capture_output=True,
                               timeout=timeout, text=True)
            return p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            return -1, "timed out after %ds" % timeout

    # ---- jobs ----------------------------------------------------------
    def prelude(self):
        # A job holds a lock on its id and one per GPU while it runs: the
        # kernel says whether two runs or two jobs ever overlapped. The
        # records are single short appends.
        return (
            'T=%s\n'
            'exec 9>>"$T/locks/job.$GQ_JOB_ID"\n'
            'flock -n 9 || echo "$GQ_JOB_ID $GQ_RESTART_COUNT" >>"$T/rec/twice"\n'
            'n=5\n'
            'for g in $(echo "$GQ_GPUS" | tr , " "); do\n'
            '  eval "exec $n>>\\"\\$T/locks/gpu.$g\\""\n'
            '  flock -n $n || echo "$g $GQ_JOB_ID $GQ_RESTART_COUNT" >>"$T/rec/clash"\n'
            '  n=$((n+1))\n'
            'done\n'
            'echo "$GQ_JOB_ID $GQ_RESTART_COUNT $GQ_GPUS" >>"$T/rec/starts"\n' % self.t)

    def job_body(self, rng, name):
        kind = rng.choices(["quick", "short", "ckpt", "p0"], [45, 25, 14, 16])[0]
        body = {"name": name, "cwd": self.t, "env": [
            "PATH=%s:/usr/bin:/bin" % os.path.dirname(self.gq), "HOME=" + self.env["HOME"],
            "GQ_SERVER=unix:" + self.sock, "LC_ALL=C", "TZ=UTC",
            "XDG_CONFIG_HOME=" + self.env["XDG_CONFIG_HOME"],
            "XDG_RUNTIME_DIR=" + self.env["XDG_RUNTIME_DIR"]]}
        gpus = rng.choice([1, 1, 1, 2])
        tier = rng.choice(["P1", "P2"])
        if kind == "quick":
            work = "exit %d\n" % rng.choice([0, 0, 0, 3])
        elif kind == "short":
            work = "sleep %.1f\n" % rng.choice([0.1, 0.3, 0.6, 1.0, 2.0])
        elif kind == "ckpt":
            tier = "P2"
            body["checkpointable"] = True
            if rng.random() < 0.5:
                body["time_limit"] = rng.choice([600, 1200, 2400])
            # Half save and exit on SIGTERM; half ignore it and are killed
            # when the grace period ends.
            trap = ("trap 'gq checkpoint >/dev/null 2>&1; exit 0' TERM\n"
                    if rng.random() < 0.5 else "trap '' TERM\n")
            work = (trap + "gq checkpoint >/dev/null 2>&1\n"
                    "i=0; while [ $i -lt 30 ]; do sleep 1; i=$((i+1)); done\n")
        else:
            tier = "P0"
            gpus = rng.choice([2, 3, 4])
            work = "sleep %.1f\n" % rng.choice([0.3, 0.8, 1.5])
        body["argv"] = ["sh", "-c", self.prelude() + work, name]
        body["tier"] = tier
        body["req"] = {"gpus": gpus}
        if rng.random() < 0.1:
            body["held"] = True
        return body

    # ---- clients -------------------------------------------------------
    def submit(self, key, body):
        """True when answered (acknowledged or refused), False when not."""
        try:
            st, data, _ = api(self.sock, "POST", "/v1/jobs", body,
                              headers={"Idempotency-Key": key}, timeout=10)
        except (OSError, http.client.HTTPException):
            with self.lock:
                self.doubt[key] = body
            return False
        if st in (200, 201):
            jid = json.loads(data)["id"]
            with self.lock:
                old = self.acked.get(key)
                self.acked[key] = jid if old is None else old
                self.doubt.pop(key, None)
            if old is not None and old != jid:
                self.found.add("duplicated", ("ack", key),
                               "key %s acknowledged as job %d, then as job %d" % (key, old, jid))
            return True
        if st >= 500:
            self.note_5xx("POST /v1/jobs", st, data)
            with self.lock:
                self.doubt[key] = body
            return False
        with self.lock:
            self.doubt.pop(key, None)
        self.found.add("submit_refused", key, "%s: %d %s" % (key, st, data[:200]))
        return True

    def note_5xx(self, what, st, data):
        with self.lock:
            self.http5xx += 1
            n = self.http5xx
        self.found.add("http_5xx", n, "%s: %d %s" % (what, st, data[:200]))

    def client(self, it, k):
        rng = random.Random("%d-%d-%d" % (self.seed, it, k))
        n = 0
        mine = self.mine.setdefault(k, [])
        while not self.stop.is_set():
            with self.lock:
                retry = [(key, b) for key, b in self.doubt.items() if key.split("-")[1] == "c%d" % k]
            if retry:
                key, b = retry[0]
                if not self.submit(key, b):
                    time.sleep(0.05)
                continue
            r = rng.random()
            try:
                if r < 0.40:
                    n += 1
                    key = "t%d-c%d-%d" % (it, k, n)
                    body = self.job_body(rng, key)
                    self.submit(key, body)
                    with self.lock:
                        if key in self.acked:
                            mine.append(self.acked[key])
                elif r < 0.47 and mine:
                    self.action(rng.choice(mine), "cancel")
                elif r < 0.52 and mine:
                    self.action(rng.choice(mine[-20:]), "hold")
                elif r < 0.57 and mine:
                    self.action(rng.choice(mine[-20:]), "release")
                elif r < 0.60 and mine:
                    self.action(rng.choice(mine[-20:]), "checkpoint")
                elif r < 0.70 and mine:
                    self.query("/v1/jobs/%d" % rng.choice(mine))
                elif r < 0.76:
                    self.query("/v1/jobs")
                elif r < 0.82:
                    self.snapshot_check(self.query("/v1/snapshot"), "load")
                elif r < 0.92:
                    self.read_events()
                elif r < 0.96 and mine:
                    self.cli("why", str(rng.choice(mine)), timeout=10)
                else:
                    self.cli("ls", timeout=10)
            except (OSError, http.client.HTTPException, ValueError, KeyError):
                time.sleep(0.05)
            time.sleep(rng.uniform(0.02, 0.12))

    def action(self, jid, what):
        st, data, _ = api(self.sock, "POST", "/v1/jobs/%d/%s" % (jid, what), {} if what != "cancel" else None)
        if st >= 500:
            self.note_5xx("POST %s %d" % (what, jid), st, data)

    def query(self, path):
        st, data, _ = api(self.sock, "GET", path)
        if st >= 500:
            self.note_5xx("GET " + path, st, data)
            return None
        return data if st == 200 else None

    def read_events(self):
        with self.lock:
            after = max(self.events_done, max(self.seen_events) if self.seen_events else 0)
        data = self.query("/v1/events?after=%d&limit=500" % after)
        if data is None:
            return
        with self.lock:
            for ev in json.loads(data)["events"]:
                self.seen_events[ev["seq"]] = ev

    def clocker(self, it):
        rng = random.Random("%d-%d-clock" % (self.seed, it))
        while not self.stop.is_set():
            time.sleep(rng.uniform(0.1, 0.4))
            self.cli("clock", rng.choice(["+1m", "+5m", "+5m"]), timeout=10)

    def drain(self, deadline):
        """Retries every unanswered submission with its key until answered."""
        while time.time() < deadline and self.server_alive():
            with self.lock:
                items = list(self.doubt.items())
            if not items:
                return
            for key, b in items:
                self.submit(key, b)
            time.sleep(0.05)

    # ---- the checks ------------------------------------------------------
    def check_health(self, it, **kw):
        """A restart_failed finding when health(**kw) says what failed."""
        err = self.health(**kw)
        if err:
            self.found.add("restart_failed", ("restart", it), "iteration %d: %s" % (it, err))
        return err

    def check_alive(self, it, proc):
        """A server_died finding when proc (the server) has exited."""
        if proc.poll() is None:
            return True
        self.found.add("server_died", it, "iteration %d: the server had exited (status %s)"
                       " before the kill:\n%s" % (it, proc.poll(), self.log_tail()))
        return False

    def health(self, sock=None, why_job=None, top_server=None):
        """None when the server answers ping, gq ls, gq why on a pending job
        and gq top; else what failed."""
        sock = sock or self.sock
        env_server = "unix:" + sock
        try:
            st, _, _ = api(sock, "GET", "/v1/ping", timeout=5)
            if st != 200:
                return "ping: %d" % st
        except (OSError, http.client.HTTPException) as ex:
            return "ping: %s" % ex
        rc, out = self.cli_env(env_server, "ls")
        if rc != 0:
            return "gq ls: exit %d: %s" % (rc, out.strip()[:300])
        rc, out = self.cli_env(env_server, "why", str(why_job or self.probe))
        if rc != 0 or not out.startswith("Pending:"):
            return "gq why %s: exit %d: %s" % (why_job or self.probe, rc, out.strip()[:300])
        err = self.top_check(top_server or env_server)
        if err:
            return "gq top: " + err
        if sock == self.sock and not self.server_alive():
            return "the server exited during the checks (status %s)" % self.server.poll()
        return None

    def cli_env(self, server, *argv):
        env = dict(self.env, GQ_SERVER=server)
        try:
            p = subprocess.run([self.gq] + list(argv), env=env, capture_output=True, timeout=20,
                               text=True)
            return p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            return -1, "timed out"

    def top_check(self, server):
        tm = ["tmux", "-S", os.path.join(self.t, "tmux"), "-f", "/dev/null"]
        rcfile = os.path.join(self.t, "top.rc")
        if os.path.exists(rcfile):
            os.unlink(rcfile)
        cmd = "GQ_SERVER='%s' '%s' top; echo $? >'%s'" % (server, self.gq, rcfile)
        subprocess.run(tm + ["kill-server"], capture_output=True, env=self.env)
        p = subprocess.run(tm + ["new-session", "-d", "-s", "top", "-x", "100", "-y", "30", cmd],
                           capture_output=True, env=self.env, text=True)
        if p.returncode != 0:
            return "tmux: " + p.stderr.strip()
        screen = ""
        try:
            ok = False
            for _ in range(100):
                screen = subprocess.run(tm + ["capture-pane", "-p", "-t", "top"], env=self.env,
                                        capture_output=True, text=True).stdout
                # the frame before the first poll already names the server
                # and shows an empty queue: only a snapshot received counts
                if ("gq serve at" in screen and re.search(r"1 Queue \d", screen)
                        and "offline" not in screen
                        and "waiting for the first snapshot" not in screen):
                    ok = True
                    break
                if os.path.exists(rcfile):
                    break
                time.sleep(0.05)
            if not ok:
                return "no dashboard within 5 s:\n" + screen.strip()[:600]
            subprocess.run(tm + ["send-keys", "-t", "top", "q"], env=self.env, capture_output=True)
            for _ in range(100):
                if os.path.exists(rcfile) and open(rcfile).read().strip():
                    break
                time.sleep(0.05)
            rc = open(rcfile).read().strip() if os.path.exists(rcfile) else "none"
            if rc != "0":
                return "exit status %s after q" % rc
            return None
        finally:
            subprocess.run(tm + ["kill-server"], capture_output=True, env=self.env)

    def check_submissions(self, jobs, acked):
        byid = {j["id"]: j for j in jobs}
        for key, jid in acked.items():
            j = byid.get(jid)
            if j is None or j.get("name") != key:
                self.found.add("lost", key, "acknowledged %s as job %d; the server has %s" % (
                    key, jid, "no such job" if j is None else "'%s' there" % j.get("name")))
        names = {}
        for j in jobs:
            names.setdefault(j.get("name"), []).append(j["id"])
        for name, ids in names.items():
            if name and name.startswith("t") and len(ids) > 1:
                self.found.add("duplicated", ("name", name), "'%s' exists as jobs %s" % (name, ids))

    def check_unrun(self, jobs):
        """A failed job's last run left its start record (check_records
        read them first)."""
        runs = getattr(self, "runs", set())
        for j in jobs:
            if j.get("state") == "failed" and (j["id"], j.get("restarts", 0)) not in runs:
                self.found.add("failed_unrun", j["id"], "job %d failed (%s, exit %s) but its "
                               "run %d never started" % (j["id"], j.get("end_reason") or "-",
                                                         j.get("exit_status"),
                                                         j.get("restarts", 0)))

    def check_times(self, jobs):
        for j in jobs:
            s, q, st, en = (j.get(f, 0) for f in ("submit_time", "queued_time", "start_time",
                                                  "end_time"))
            bad = []
            if q and q < s:
                bad.append("queued_time %d < submit_time %d" % (q, s))
            if st and st < s:
                bad.append("start_time %d < submit_time %d" % (st, s))
            if en and st and en < st:
                bad.append("end_time %d < start_time %d" % (en, st))
            if bad:
                self.found.add("times_out_of_order", j["id"], "job %d (%s): %s" % (
                    j["id"], j.get("state"), ", ".join(bad)))

    def snapshot_check(self, data, where):
        """Overlapping GPUs and non-finite numbers of one snapshot text."""
        if data is None:
            return
        text = data.decode() if isinstance(data, bytes) else data
        try:
            snap = self.parse_finite(text, "snapshot (%s)" % where)
        except ValueError:
            return
        if not isinstance(snap, dict) or not isinstance(snap.get("jobs"), list):
            return
        if snap["jobs"] and isinstance(snap["jobs"][0], list):
            return  # the rows form: scanned for numbers only
        held = {}
        for j in snap["jobs"]:
            # Finished jobs keep the alloc of their last run: only jobs
            # that hold GPUs count.
            if j.get("state", "pending") not in ACTIVE:
                continue
            for a in j.get("alloc", []):
                for g in a.get("gpus", []):
                    held.setdefault((a.get("node", 0), g), []).append(j["id"])
        for (node, g), ids in held.items():
            if len(ids) > 1:
                self.found.add("gpu_overlap", ("snap", node, g, tuple(sorted(ids))),
                               "%s snapshot at %s: node %d GPU %d held by jobs %s" % (
                                   where, snap.get("now"), node, g, ids))

    def parse_finite(self, text, where):
        """Parses JSON text, adding a nonfinite finding for NaN, Infinity and
        numbers that overflow to infinity. Raises ValueError when the text is
        not JSON (then scanned as text)."""
        bad = []

        def const(c):
            bad.append(c)
            return 0

        def flt(s):
            v = float(s)
            if not math.isfinite(v):
                bad.append(s)
            return v

        try:
            v = json.loads(text, parse_constant=const, parse_float=flt)
        except ValueError:
            m = NONFINITE_TEXT.search(text)
            if m:
                self.found.add("nonfinite", (where, m.group(0)),
                               "%s: not JSON, and holds '%s' near: %s" % (
                                   where, m.group(0), text[max(0, m.start() - 80):m.end() + 40]))
            raise
        for b in bad:
            i = text.find(b)
            self.found.add("nonfinite", (where, b), "%s holds %s near: %s" % (
                where, b, text[max(0, i - 100):i + 20]))
        return v

    def check_db(self, path):
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)
        except sqlite3.Error as ex:
            self.found.add("restart_failed", ("db", str(ex)), "cannot open the journal: %s" % ex)
            return
        try:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for t in tables:
                cols = [r[1] for r in db.execute("PRAGMA table_info(%s)" % t)]
                for row in db.execute("SELECT * FROM %s" % t):
                    for c, v in zip(cols, row):
                        self.check_value(v, "journal %s.%s (row %s)" % (t, c, row[0]))
        except sqlite3.Error as ex:
            print("# journal scan: %s" % ex, flush=True)
        finally:
            db.close()

    def check_value(self, v, where):
        if isinstance(v, float):
            if not math.isfinite(v):
                self.found.add("nonfinite", (where, repr(v)), "%s = %r" % (where, v))
        elif isinstance(v, str):
            s = v.lstrip()
            if s[:1] in ("{", "["):
                try:
                    self.parse_finite(v, where)
                    return
                except ValueError:
                    return
            m = NONFINITE_TEXT.search(v)
            if m:
                self.found.add("nonfinite", (where, m.group(0)), "%s: %r" % (where, v[:200]))

    def check_log(self, path=None):
        path = path or self.log
        with open(path, "rb") as f:
            f.seek(self.log_offset if path == self.log else 0)
            text = f.read().decode(errors="replace")
            if path == self.log:
                self.log_offset = f.tell()
        for line in text.splitlines():
            if LOG_ALARM.search(line) and not line.startswith("=== torture"):
                msg = re.sub(r"^\S+Z ", "", line)
                self.found.add("log_alarms", msg, line)

    def read_rec(self, name):
        path = os.path.join(self.rec, name)
        if not os.path.exists(path):
            return []
        with open(path) as f:
            f.seek(self.rec_offsets.get(name, 0))
            lines = f.readlines()
            if lines and not lines[-1].endswith("\n"):
                lines.pop()  # a record still being written: next time
            self.rec_offsets[name] = self.rec_offsets.get(name, 0) + sum(len(x) for x in lines)
        return [ln.split() for ln in lines]

    def check_records(self, starts=None, twice=None, clash=None):
        starts = self.read_rec("starts") if starts is None else starts
        twice = self.read_rec("twice") if twice is None else twice
        clash = self.read_rec("clash") if clash is None else clash
        if not hasattr(self, "runs"):
            self.runs = set()
        for r in starts:
            if len(r) < 2:
                continue
            run = (int(r[0]), int(r[1]))
            if run in self.runs:
                self.found.add("started_twice", ("run", run),
                               "job %d ran twice with GQ_RESTART_COUNT %d" % run)
            self.runs.add(run)
        for r in twice:
            self.found.add("started_twice", ("lock", tuple(r)),
                           "job %s (restart %s) started while a run of it still held its lock" % (
                               r[0], r[1] if len(r) > 1 else "?"))
        for r in clash:
            self.found.add("gpu_overlap", ("lock", tuple(r)),
                           "job %s (restart %s) was given GPU %s while another job held it" % (
                               r[1], r[2] if len(r) > 2 else "?", r[0]))

    def fetch_events(self, after):
        out = []
        while True:
            d = api_json(self.sock, "GET", "/v1/events?after=%d&limit=10000" % after, timeout=30)
            out += d["events"]
            if not d["events"]:
                return out
            after = d["events"][-1]["seq"]

    def check_events(self, events, seen):
        have = {e["seq"]: e for e in events}
        for seq, ev in seen.items():
            if seq <= self.events_done:
                continue
            now = have.get(seq)
            if now != ev:
                self.found.add("events_lost", seq, "event %d %s was read as %s, now %s" % (
                    seq, ev.get("kind"), json.dumps(ev), json.dumps(now)))
        for ev in events:
            if ev["from"] == ev["to"] and ev["kind"] != "state":
                continue
            jid = ev["job"]
            cur = self.job_state.get(jid, "pending")
            if ev["to"] == "starting" and cur != "pending":
                self.found.add("started_twice", ("event", ev["seq"]),
                               "event %d starts job %d while it is %s: %s" % (
                                   ev["seq"], jid, cur, json.dumps(ev)))
            if ev["from"] != cur:
                self.found.add("transition_breaks", ("event", ev["seq"]),
                               "event %d of job %d goes %s->%s but the job was %s" % (
                                   ev["seq"], jid, ev["from"], ev["to"], cur))
            self.job_state[jid] = ev["to"]

    def after_restart(self, it):
        """The checks after a restart; the server is up (or counted as not)."""
        if self.check_health(it):
            print("# server log, last lines:\n" + self.log_tail(), flush=True)
        # What the server left behind is checked even when it is gone.
        self.check_db(os.path.join(self.state, "gq.db"))
        self.check_records()
        self.check_log()
        if not self.server_alive():
            return False
        try:
            jobs = api_json(self.sock, "GET", "/v1/jobs?all=1", timeout=60)["jobs"]
            with self.lock:
                acked = dict(self.acked)
                seen = dict(self.seen_events)
            self.check_submissions(jobs, acked)
            self.check_unrun(jobs)
            self.check_times(jobs)
            for form in ("", "?form=rows"):
                st, data, _ = api(self.sock, "GET", "/v1/snapshot" + form, timeout=30)
                self.snapshot_check(data, "restart %d%s" % (it, form))
            events = self.fetch_events(self.events_done)
            self.check_events(events, seen)
            if events:
                self.events_done = events[-1]["seq"]
            with self.lock:
                self.seen_events = {}
        except (OSError, http.client.HTTPException, RuntimeError, ValueError) as ex:
            self.found.add("restart_failed", ("query", it), "iteration %d: reading the state: %s" % (
                it, ex))
        return True

    def log_tail(self, n=8):
        with open(self.log, "rb") as f:
            lines = f.read().decode(errors="replace").splitlines()
        return "\n".join("#   " + x for x in lines[-n:])

    def trim(self):
        """Keeps the backlog small enough for a 2-core machine: cancels the
        oldest pending jobs beyond 80 (the probe stays)."""
        try:
            jobs = api_json(self.sock, "GET", "/v1/jobs?state=pending", timeout=30)["jobs"]
        except (OSError, http.client.HTTPException, RuntimeError, ValueError):
            return
        extra = [j["id"] for j in jobs if j["id"] != self.probe][:-80]
        for jid in extra:
            try:
                api(self.sock, "POST", "/v1/jobs/%d/cancel" % jid)
            except (OSError, http.client.HTTPException):
                return

    # ---- the run ---------------------------------------------------------
    def iteration(self, it):
        t0 = time.time()
        if not self.server_alive():
            self.mark_log("iteration %d: start (the server is not running)" % it)
            if not self.start_server():
                self.found.add("restart_failed", ("start", it), "iteration %d: the server did "
                               "not start:\n%s" % (it, self.log_tail()))
                return
        # One iteration in four, the server kills itself at the first job
        # start of the iteration, in the instant between the start's
        # journalling and the supervisor's fork (failed_unrun's window):
        # a random kill hardly ever lands there.
        at_start = it % 4 == 3
        if at_start:
            self.mark_log("iteration %d: a server that dies at its first job start" % it)
            self.server.send_signal(signal.SIGKILL)
            self.server.wait()
            self.start_server(kill_at_start=True)
        self.stop.clear()
        threads = [threading.Thread(target=self.client, args=(it, k), daemon=True)
                   for k in range(self.args.clients)]
        threads.append(threading.Thread(target=self.clocker, args=(it,), daemon=True))
        for th in threads:
            th.start()
        rng = self.rng
        delay = rng.uniform(0, 0.15) if rng.random() < 0.2 else rng.uniform(0.3, 2.5)
        down = rng.uniform(0, 0.6)
        time.sleep(delay)
        if at_start:
            deadline = time.time() + 10
            while self.server.poll() is None and time.time() < deadline:
                time.sleep(0.02)
            if self.server.poll() == -signal.SIGKILL:
                self.mark_log("iteration %d: died at a job start after %.2f s" % (it, delay))
            else:
                self.server.send_signal(signal.SIGKILL)  # no job started: a plain kill
                self.server.wait()
            self.kills += 1
        elif self.check_alive(it, self.server):
            self.mark_log("iteration %d: kill -9 after %.2f s" % (it, delay))
            self.server.send_signal(signal.SIGKILL)
            self.server.wait()
            self.kills += 1
        time.sleep(down)
        self.mark_log("iteration %d: restart" % it)
        up = self.start_server()
        self.restarts += 1
        if up:
            time.sleep(rng.uniform(0.2, 0.8))  # retries and load on the new server
        self.stop.set()
        for th in threads:
            th.join(30)
        if up:
            self.drain(time.time() + 15)
        with self.lock:
            doubt = len(self.doubt)
        if not up:
            self.found.add("restart_failed", ("start", it), "iteration %d: the restart did not "
                           "come up:\n%s" % (it, self.log_tail()))
            self.check_db(os.path.join(self.state, "gq.db"))
            self.check_log()
        else:
            self.after_restart(it)
            self.trim()
        self.loads.append(os.getloadavg()[0])
        print("iter %d: kill after %.2fs, down %.2fs, %d acknowledged, %d unanswered, %.1fs, %s" % (
            it, delay, down, len(self.acked), doubt, time.time() - t0,
            " ".join("%s=%d" % (c, self.found.count(c)) for c in CHECKS
                     if self.found.count(c))), flush=True)

    def run(self):
        self.policy = self.make_policy()
        t0 = time.time()
        load0 = os.getloadavg()
        if not self.start_server():
            print("gq serve does not start:\n" + self.log_tail(), file=sys.stderr)
            return 2
        pol = api_json(self.sock, "GET", "/v1/policy")
        if not pol.get("revision"):
            print("torture: the torture policy is not in force:\n" + self.log_tail(),
                  file=sys.stderr)
            self.shutdown()
            return 2
        st, data, _ = api(self.sock, "POST", "/v1/jobs", {
            "name": "probe", "argv": ["true"], "held": True, "cwd": self.t})
        self.probe = json.loads(data)["id"]
        print("# torture: seed %d, %d iterations, %d clients, %d GPUs, scratch %s" % (
            self.seed, self.args.iterations, self.args.clients, self.args.gpus, self.t), flush=True)
        for it in range(1, self.args.iterations + 1):
            self.iteration(it)
        secs = time.time() - t0
        ok_selftest = True
        if self.args.self_test:
            if not self.server_alive():
                self.mark_log("self-test: start (the server is not running)")
                self.start_server()
            ok_selftest = self.self_test()
        self.shutdown()
        with self.lock:
            for key in self.doubt:
                self.found.add("unanswered_submissions", key, "%s: never answered" % key)
        fails = sum(self.found.count(c) for c in CHECKS)
        print("# torture: seed %d, %d iterations, %d kills, %d restarts, %d acknowledged "
              "submissions, %d runs started, %.0f s (%.1f s per iteration), load average %.1f at "
              "the start, %.1f mean, %.1f max" % (
                  self.seed, self.args.iterations, self.kills, self.restarts, len(self.acked),
                  len(getattr(self, "runs", ())), secs, secs / max(1, self.args.iterations),
                  load0[0], sum(self.loads) / max(1, len(self.loads)), max(self.loads or [0])))
        print("# exercised: " + self.exercised())
        for c in CHECKS:
            print("count %s %d" % (c, self.found.count(c)))
        for c in NOTES:
            print("note %s %d" % (c, self.found.count(c)))
        if fails or not ok_selftest:
            print("# replay: %s --seed %d --iterations %d (scratch kept in %s)" % (
                sys.argv[0], self.seed, self.args.iterations, self.t))
            return 1
        if not self.args.keep:
            shutil.rmtree(self.t, ignore_errors=True)
        return 0

    def exercised(self):
        """What the run went through, from the server's log: so that a
        quiet run says it was not a quiet server."""
        with open(self.log, "rb") as f:
            text = f.read().decode(errors="replace")
        what = [("preempted", r"\bpreempted \("), ("killed after a grace period",
                                                  r"grace period over, SIGKILL"),
                ("ended while the server was down", r"ended while the server was down"),
                ("adopted", r"still running, adopted"),
                ("not started before the kill", r"was not started while the server was down")]
        out = ["%d %s" % (len(re.findall(rx, text)), name) for name, rx in what]
        try:
            db = sqlite3.connect("file:%s?mode=ro" % os.path.join(self.state, "gq.db"), uri=True)
            for kind, name in (("checkpoint", "checkpoints"), ("clock", "clock moves"),
                               ("hold", "holds"), ("release", "releases")):
                n = db.execute("SELECT count(*) FROM events WHERE kind = ?", (kind,)).fetchone()[0]
                out.append("%d %s" % (n, name))
            states = db.execute("SELECT json_extract(job, '$.state'), count(*) FROM jobs "
                                "GROUP BY 1 ORDER BY 2 DESC").fetchall()
            out.append("jobs now " + " ".join("%s %d" % (st, n) for st, n in states))
            db.close()
        except sqlite3.Error:
            pass
        return ", ".join(out)

    def shutdown(self):
        """Stops the server, then every job it left running (jobs outlive
        their server by design) and their supervisors: only processes of
        this run, found by their scratch directory."""
        if self.server_alive():
            self.server.terminate()
            try:
                self.server.wait(10)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        for _ in range(3):
            pids = []
            for p in os.listdir("/proc"):
                if not p.isdigit() or int(p) == os.getpid():
                    continue
                try:
                    with open("/proc/%s/cmdline" % p, "rb") as f:
                        if self.t.encode() in f.read():
                            pids.append(int(p))
                except OSError:
                    pass
            if not pids:
                break
            for p in pids:
                try:
                    pg = os.getpgid(p)
                    if pg != os.getpgid(0):
                        os.killpg(pg, signal.SIGKILL)
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.2)

    # ---- every check can fail ------------------------------------------------
    def self_test(self):
        """Runs each check once on inputs with one fault injected; each must
        report it. Leaves the real counts alone."""
        real = self.found
        results = []

        def expect(check, fn):
            self.found = Findings(quiet=True)
            try:
                fn()
            except Exception as ex:  # a check that crashes has not caught it
                print("# self-test %s: %r" % (check, ex))
            got = self.found.count(check)
            results.append((check, got > 0))
            print("%s self-test %s: an injected fault is reported (injection %d)" % (
                "ok" if got else "not ok", check, len(results)), flush=True)

        acked = dict(self.acked)
        try:
            jobs = api_json(self.sock, "GET", "/v1/jobs?all=1", timeout=60)["jobs"]
        except (OSError, http.client.HTTPException, RuntimeError, ValueError):
            jobs = [{"id": i, "name": k} for k, i in acked.items()]  # the server is gone
        if not hasattr(self, "runs") or not self.runs:
            self.runs = {(1, 0)}
        some = next(iter(acked.items()))
        expect("lost", lambda: self.check_submissions(
            jobs, dict(acked, **{"t0-c0-lost": max(j["id"] for j in jobs) + 1000})))
        expect("lost", lambda: self.check_submissions(
            [j for j in jobs if j["id"] != some[1]], acked))
        twin = dict(next(j for j in jobs if j.get("name") == some[0]), id=10 ** 9)
        expect("duplicated", lambda: self.check_submissions(jobs + [twin], acked))
        runs = set(self.runs)
        run = next(iter(runs))
        expect("failed_unrun", lambda: self.check_unrun([{
            "id": 10 ** 9, "state": "failed", "restarts": 0, "exit_status": -1}]))
        expect("started_twice", lambda: self.check_records(
            starts=[[str(run[0]), str(run[1]), "0"]], twice=[], clash=[]))
        self.runs = runs
        expect("started_twice", lambda: self.check_records(
            starts=[], twice=[["7", "0"]], clash=[]))
        saved = dict(self.job_state)
        self.job_state = {5: "running"}
        expect("started_twice", lambda: self.check_events([{
            "seq": 10 ** 9, "time": 0, "job": 5, "kind": "state", "from": "pending",
            "to": "starting", "reason": "start", "actor": "scheduler"}], {}))
        self.job_state = saved
        expect("gpu_overlap", lambda: self.snapshot_check(json.dumps({"now": 0, "jobs": [
            {"id": 1, "state": "running", "alloc": [{"node": 0, "gpus": [0, 1]}]},
            {"id": 2, "state": "stopping", "alloc": [{"node": 0, "gpus": [1]}]}]}), "injected"))
        expect("gpu_overlap", lambda: self.check_records(starts=[], twice=[], clash=[["3", "9", "0"]]))
        nosock = os.path.join(self.t, "nosock")
        expect("restart_failed", lambda: self.check_health(-1, sock=nosock))
        expect("restart_failed", lambda: self.check_health(-2, why_job=10 ** 9))
        expect("restart_failed", lambda: self.check_health(-3, top_server="unix:" + nosock))
        snap = json.dumps({"now": 1, "jobs": [], "queues": [{"name": "default", "usage": 0.5}]})
        expect("nonfinite", lambda: self.snapshot_check(
            snap.replace('"usage":', '"usage":NaN,"x":', 1), "injected"))
        expect("nonfinite", lambda: self.snapshot_check(
            snap.replace('"now":', '"now":1e999,"x":', 1), "injected"))
        dbcopy = os.path.join(self.t, "inject.db")
        src = sqlite3.connect("file:%s?mode=ro" % os.path.join(self.state, "gq.db"), uri=True)
        dst = sqlite3.connect(dbcopy)
        src.backup(dst)
        src.close()
        dst.execute("UPDATE meta SET v = 'q default nan 0' WHERE k = 'usage'")
        dst.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('usage', 'q default nan 0')")
        dst.commit()
        dst.close()
        expect("nonfinite", lambda: self.check_db(dbcopy))
        dst = sqlite3.connect(dbcopy)
        dst.execute("DELETE FROM meta WHERE k = 'usage'")
        dst.execute("INSERT INTO preemptions(victim, trigger_job, reason, queue, dept, "
                    "trigger_dept, cross_dept, gpus, ran, last_checkpoint, signalled, saved, "
                    "released, restarted, work_lost, resumed) VALUES "
                    "(1, 2, 'priority', 'q', 'd', 'd', 0, 1, 0, 0, 0, 0, 0, 0, 9e999, 0)")
        dst.commit()
        dst.close()
        expect("nonfinite", lambda: self.check_db(dbcopy))
        fake = os.path.join(self.t, "inject.log")
        with open(fake, "w") as f:
            f.write("2026-01-01T00:00:00.000Z info  fine\ngq: fatal: out of memory (0 bytes)\n")
        expect("log_alarms", lambda: self.check_log(fake))
        ev = {"seq": 10 ** 9, "time": 0, "job": 1, "kind": "submit", "from": "pending",
              "to": "pending", "reason": "submitted", "actor": "x"}
        expect("events_lost", lambda: self.check_events([], {ev["seq"]: ev}))
        expect("events_lost", lambda: self.check_events([dict(ev, reason="other")],
                                                        {ev["seq"]: ev}))
        dead = subprocess.Popen(["true"])
        dead.wait()
        expect("server_died", lambda: self.check_alive(-1, dead))
        self.found = real
        return all(ok for _, ok in results)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--gq", default=os.environ.get("GQ", "./gq"))
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--self-test", action="store_true",
                    help="then prove that every check reports an injected fault")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 2 ** 31)
    if not os.access(args.gq, os.X_OK):
        print("torture: no gq binary at '%s'; build it with make or pass --gq" % args.gq,
              file=sys.stderr)
        return 2
    for tool in ("flock", "tmux", "git"):
        if not shutil.which(tool):
            print("torture: '%s' is not installed; make deps installs it" % tool, file=sys.stderr)
            return 2
    t = Torture(args)
    try:
        return t.run()
    except KeyboardInterrupt:
        t.shutdown()
        return 1


if __name__ == "__main__":
    sys.exit(main())
