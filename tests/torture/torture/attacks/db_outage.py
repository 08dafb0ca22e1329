"""Attack 5: database outage. Under load, the database goes away for 5 s and comes back:

- PostgreSQL (a throwaway cluster from `ringside db temp`) killed during load on /users/:id
  (SIGUSR1, as a crash would), started again 5 s later (SIGUSR2);
- SQLite made unwritable during load on /updates, two ways, 5 s each. Root ignores file modes,
  so "unwritable" here is (1) the write lock held by another process (`BEGIN EXCLUSIVE` from
  Python: every writer gets SQLITE_BUSY, which is what a backup or a migration does to a live
  file) and (2) the filesystem refusing writes: `chattr +i` on the database file and its WAL
  (writes through the server's open descriptors then fail with EPERM, as on a file gone
  read-only or a full disk). The -shm file is left alone: SQLite writes it through mmap.
- SQLite on a disk that stalls for 5 s: the database on an ext4 image loop-mounted in the
  scratch directory, frozen with `fsfreeze -f` (every write to it, a write() or a store through
  the -shm mapping, sleeps in the kernel, D state, until `fsfreeze -u`), as a stalled disk, a
  journal commit or dirty-page throttling does on a busy machine. Beside the /updates load, a
  constant-rate load on GET / (no database) must see no failure and no answer slower than
  HELLO_MAX_S: a SQLite call blocked on the worker's own thread would hold its event loop,
  which then answers nothing, not even --db-timeout's 503. Needs root and a loop device (else
  skipped, with a note); a process in D state cannot be killed, so every way out of the part
  (failure, SIGINT, the runner's bound) thaws first, then unmounts.

Each run expects: only 200 and 503 at the client (no other status, no transport error, no
timeout); every request answered within --db-timeout plus a margin (the load's max latency, and
its --timeout, so that a hung request fails as a timeout rather than waiting out the run); a
probe (GET every ~20 ms on a fresh connection) sent and answered inside the outage gets 503; the
server alive; and full service (every probe answer 200) within 2 s of the database's return.
PostgreSQL's return is the moment it accepts a session again, found by a second probe speaking
PostgreSQL's start-up protocol every 20 ms (`db temp`'s own announcement polls too)."""
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import threading
import time

from ..framework import AttackError, get_status, load_report, wait_until

NUMBER = 5
NAME = "database-outage"
TITLE = ("PostgreSQL killed for 5 s under /users/:id, SQLite unwritable or its disk stalled "
         "for 5 s under /updates")
BUDGET_S = (95, 300)

OUTAGE_S = 5.0
RECOVERY_BOUND_S = 2.0
PROBE_INTERVAL_S = 0.02
PG_DB_TIMEOUT_S = 2.0
SQLITE_DB_TIMEOUT_S = 1.0
# The WAL after minutes of /updates: a few MB when checkpoints start it over (it grew to 3.4 GB
# when they could not catch up with the writers).
WAL_BOUND_MB = 64
# Beyond --db-timeout, what a loaded 2-core machine may add to an answer.
LATENCY_MARGIN_S = 2.0
# The load on GET / beside a SQLite outage (no database): a constant rate, so that its latency
# (corrected for coordinated omission) counts every moment the worker's loop did not answer. A
# loop held by the stalled disk shows the whole stall (5 s); a free one showed up to 0.3 s on this
# 2-core machine with builds beside it, with no stall at all, hence a bound of --db-timeout.
HELLO_CONNECTIONS = 4
HELLO_RATE = 1000
HELLO_MAX_S = 1.0


class Probe(threading.Thread):
    """GET `path` on a fresh connection every PROBE_INTERVAL_S; records (sent, answered, status)
    with status None for a transport error (refused, reset, timeout)."""

    def __init__(self, port, path):
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.answers = []
        self.halt = threading.Event()

    def one(self):
        return get_status(self.port, self.path, timeout=10)

    def run(self):
        while not self.halt.is_set():
            sent = time.monotonic()
            status = self.one()
            self.answers.append((sent, time.monotonic(), status))
            self.halt.wait(PROBE_INTERVAL_S)

    def stop(self):
        self.halt.set()
        self.join(20)


def postgres_accepts(port):
    """True when PostgreSQL on 127.0.0.1:port completes a session's start-up (trust auth) up to
    ReadyForQuery; False while it refuses connections or says it is starting up."""
    body = struct.pack("!i", 196608) + b"user\0postgres\0database\0ringside\0\0"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(struct.pack("!i", len(body) + 4) + body)
            data = b""
            while True:
                while len(data) >= 5:
                    kind, length = data[:1], struct.unpack("!i", data[1:5])[0]
                    if kind == b"E":
                        return False
                    if kind == b"Z":
                        sock.sendall(b"X\0\0\0\4")  # Terminate
                        return True
                    if len(data) < 1 + length:
                        break
                    data = data[1 + length:]
                chunk = sock.recv(4096)
                if not chunk:
                    return False
                data += chunk
    except OSError:
        return False


def wait_for_time(moment):
    """The outage's length is the attack's input: wait (bounded) until the clock reaches it."""
    wait_until(lambda: time.monotonic() >= moment, max(0.0, moment - time.monotonic()) + 1.0,
               interval=0.01)


def outage_run(ctx, result, prefix, served, *, load_args, probe_path, begin, end, db_timeout_s,
               before_s, after_s, restart_allowance_s, undo=None, hello_url=None):
    """Runs the load (and the probe) across one outage: `begin()` makes the database go away and
    returns when it has; OUTAGE_S later `end()` brings it back and returns (the last moment it was
    known to be still away, the first moment it was known to be back). Records the prefix_*
    figures and the expectations.

    `undo()`, when given, is called first when anything (a failure, SIGINT, the runner's bound)
    interrupts the run once begin() has been called, before waiting for anything: an outage that
    holds processes in the kernel must not outlast the run. `hello_url`, when given, is a route
    without the database, loaded beside (HELLO_CONNECTIONS at HELLO_RATE) across the whole run:
    the outage must not delay it (no failed request, none slower than HELLO_MAX_S)."""
    duration = before_s + OUTAGE_S + restart_allowance_s + after_s
    # A request unanswered within --db-timeout plus the margin is a timeout error at the client
    # (the load runs well past the outage): a hung request cannot hide among those in flight at
    # the end of -d, which the load leaves unanswered whatever the server does.
    timeout = db_timeout_s + LATENCY_MARGIN_S
    load = ctx.spawn([ctx.bin, "load", "--json", "-t", "1", "--timeout", f"{timeout:g}s",
                      "-d", f"{duration:.1f}s", *load_args], name=f"{prefix}-load", core=ctx.load_core)
    hello = None if hello_url is None else ctx.spawn(
        [ctx.bin, "load", "--json", "-t", "1", "-c", HELLO_CONNECTIONS, "-R", HELLO_RATE,
         "--timeout", f"{timeout:g}s", "-d", f"{duration:.1f}s", hello_url],
        name=f"{prefix}-hello-load", core=ctx.load_core)
    probe = Probe(served.port, probe_path)
    probe.start()
    began = False
    try:
        started = time.monotonic()
        wait_for_time(started + before_s)
        began = True
        begin()
        gone = time.monotonic()
        wait_for_time(gone + OUTAGE_S)
        down_until, back = end()
        began = False
        ctx.progress(f"{prefix}: database back {back - gone:.2f} s after it went")
        code = load.wait(duration + 60)
        if code is None:
            raise AttackError(f"{prefix}: ringside load ran past {duration + 60:.0f}s")
        wait_until(lambda: time.monotonic() >= back + RECOVERY_BOUND_S + 0.5, RECOVERY_BOUND_S + 1)
    except BaseException:
        if began and undo is not None:
            undo()
        raise
    finally:
        probe.stop()
    try:
        doc = json.loads(load.output())
    except ValueError:
        raise AttackError(f"{prefix}: ringside load exited {code} without a JSON report: "
                          f"{load.errors()[-300:]}") from None

    codes = {int(k): v for k, v in doc["status"]["codes"].items()}
    other = sum(n for status, n in codes.items() if status not in (200, 503))
    errors = {kind: n for kind, n in doc["errors"].items() if n}
    max_s = doc["latency_us"]["max"] / 1e6
    result.figure(f"{prefix}_requests", doc["requests"]["completed"] + doc["requests"]["failed"])
    result.figure(f"{prefix}_200", codes.get(200, 0))
    result.figure(f"{prefix}_503", codes.get(503, 0))
    result.figure(f"{prefix}_other", other)
    result.figure(f"{prefix}_errors", doc["requests"]["failed"])
    result.figure(f"{prefix}_max_ms", round(max_s * 1000))
    result.expect(code == 0, f"{prefix}: ringside load exited {code}: {load.errors()[-300:]}")
    result.expect(other == 0, f"{prefix}: statuses other than 200 and 503: {codes}")
    result.expect(not errors, f"{prefix}: failed requests at the client: {errors}")
    result.expect(codes.get(503, 0) > 0, f"{prefix}: no 503 during the outage: {codes}")
    result.expect(codes.get(200, 0) > 0, f"{prefix}: no 200 at all: {codes}")
    result.expect(max_s <= db_timeout_s + LATENCY_MARGIN_S,
                  f"{prefix}: a request took {max_s:.2f} s, over --db-timeout {db_timeout_s:g} s "
                  f"+ {LATENCY_MARGIN_S:g} s (a hung request)")

    # The probe: inside the outage only 503; after the return, 200 for good within the bound.
    inside = [status for sent, answered, status in probe.answers
              if sent >= gone and answered <= down_until]
    wrong_inside = sorted({str(s) for s in inside if s != 503})
    result.expect(inside and not wrong_inside,
                  f"{prefix}: probe answers inside the outage other than 503: {wrong_inside} "
                  f"({len(inside)} probes)")
    probe_errors = sum(1 for _, _, status in probe.answers if status is None)
    result.expect(probe_errors == 0, f"{prefix}: {probe_errors} probe requests got no answer")
    after = [(answered, status) for sent, answered, status in probe.answers if sent >= back]
    first_200 = next((answered for answered, status in after if status == 200), None)
    full_from = None
    for answered, status in after:
        if status != 200:
            full_from = None
        elif full_from is None:
            full_from = answered
    outage_s = result.figure(f"{prefix}_outage_s", round(back - gone, 2))
    first_s = None if first_200 is None else round(first_200 - back, 3)
    full_s = None if full_from is None else round(full_from - back, 3)
    result.figure(f"{prefix}_first_200_s", "none" if first_s is None else first_s)
    result.figure(f"{prefix}_full_s", "none" if full_s is None else full_s)
    result.expect(outage_s >= OUTAGE_S, f"{prefix}: the outage lasted only {outage_s} s")
    result.expect(full_s is not None and full_s <= RECOVERY_BOUND_S,
                  f"{prefix}: full service {full_s} s after the database's return "
                  f"(bound {RECOVERY_BOUND_S:g} s); probe after it: "
                  f"{[s for _, s in after[:20]]}")
    result.expect(served.alive(), f"{prefix}: the server died: {served.errors()[-300:]}")
    if hello is not None:
        hello_expectations(result, prefix, hello, timeout)


def hello_expectations(result, prefix, hello, timeout):
    """The load on a route without the database: every request answered 200, none delayed by the
    outage beyond HELLO_MAX_S (a worker whose loop is held by a database call fails both)."""
    code, doc = load_report(hello, timeout + 60)
    codes = {int(k): v for k, v in doc["status"]["codes"].items()}
    errors = {kind: n for kind, n in doc["errors"].items() if n}
    max_s = doc["latency_us"]["max"] / 1e6
    result.figure(f"{prefix}_hello_requests", doc["requests"]["completed"] + doc["requests"]["failed"])
    result.figure(f"{prefix}_hello_errors", doc["requests"]["failed"])
    result.figure(f"{prefix}_hello_max_ms", round(max_s * 1000))
    result.expect(code == 0, f"{prefix}: the hello load exited {code}: {hello.errors()[-300:]}")
    result.expect(not errors and set(codes) <= {200},
                  f"{prefix}: GET / (no database) failed during the outage: errors {errors}, "
                  f"statuses {codes}")
    result.expect(max_s <= HELLO_MAX_S,
                  f"{prefix}: GET / (no database) took {max_s:.2f} s, over {HELLO_MAX_S:g} s "
                  f"(the worker's loop was held by a database call)")


# -- PostgreSQL ------------------------------------------------------------------------------
def announced(child, text, count):
    return child.errors().count(text) >= count


def postgres_outage(ctx, result):
    ctx.need_tools("taskset")
    temp = ctx.spawn([ctx.bin, "db", "temp"], name="db-temp")
    url = wait_until(lambda: temp.output().decode().strip() or (None if temp.alive() else "-"), 90)
    if not url or url == "-":
        raise AttackError(f"ringside db temp did not start: {temp.errors()[-400:]}")
    pg_port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    try:
        served = ctx.serve("--db", url, "--db-timeout", f"{PG_DB_TIMEOUT_S:g}s", threads=2,
                           name="serve-pg")
        ids = os.path.join(ctx.scratch, "user-urls.txt")
        with open(ids, "w") as f:
            for user_id in range(1, 51):
                f.write(served.url(f"/users/{user_id * 97}") + "\n")
        if not wait_until(lambda: Probe(served.port, "/users/1").one() == 200, 30):
            raise AttackError("the server never answered /users/1 with 200 before the outage")

        def kill():
            temp.signal(signal.SIGUSR1)
            if not wait_until(lambda: announced(temp, "PostgreSQL killed", 1), 30):
                raise AttackError(f"db temp did not kill PostgreSQL: {temp.errors()[-300:]}")

        def restart():
            temp.signal(signal.SIGUSR2)
            sent = time.monotonic()
            # From the signal on, the first moment PostgreSQL completes a session start-up, and
            # the start of the last attempt it refused.
            attempts = []

            def accepts():
                attempts.append(time.monotonic())
                return postgres_accepts(pg_port) and time.monotonic()
            back = wait_until(accepts, 60)
            if not back:
                raise AttackError(f"PostgreSQL did not come back within 60 s: {temp.errors()[-300:]}")
            wait_until(lambda: announced(temp, "PostgreSQL restarted", 1), 60)
            ctx.progress(f"pg: accepting {back - sent:.2f} s after SIGUSR2")
            return (attempts[-2] if len(attempts) > 1 else sent), back

        short = ctx.short
        outage_run(ctx, result, "pg", served,
                   load_args=["-c", "16", "--urls-file", ids], probe_path="/users/1",
                   begin=kill, end=restart, db_timeout_s=PG_DB_TIMEOUT_S,
                   before_s=2 if short else 10, after_s=3 if short else 10,
                   restart_allowance_s=3)
        served.stop()
    finally:
        temp.signal(signal.SIGTERM)
        if temp.wait(60) is None:
            result.failures.append("ringside db temp did not stop within 60 s of SIGTERM")


# -- SQLite ----------------------------------------------------------------------------------
def chattr(flag, *paths):
    subprocess.run(["chattr", flag, *paths], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, timeout=20)


def immutable_supported(directory):
    """chattr +i works here (not on tmpfs, overlay or without CAP_LINUX_IMMUTABLE)."""
    path = os.path.join(directory, "chattr-check")
    open(path, "w").close()
    try:
        chattr("+i", path)
    except subprocess.CalledProcessError:
        return False
    chattr("-i", path)
    os.unlink(path)
    return True


def sqlite_outages(ctx, result):
    ctx.need_tools("chattr")
    directory = os.path.join(ctx.scratch, "sqlite")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "outage.db")
    # One worker: its single connection is the only writer, so the 503s come from the outage and
    # not from two workers contending for the write lock.
    served = ctx.serve("--db", f"sqlite:{path}", "--db-timeout", f"{SQLITE_DB_TIMEOUT_S:g}s",
                       threads=1, name="serve-sqlite")
    if not wait_until(lambda: Probe(served.port, "/updates?queries=1").one() == 200, 30):
        raise AttackError("the server never answered /updates with 200 before the outage")
    short = ctx.short
    timing = dict(db_timeout_s=SQLITE_DB_TIMEOUT_S, before_s=1.5 if short else 10,
                  after_s=2.5 if short else 10, restart_allowance_s=0.5)
    load_args = ["-c", "8", served.url("/updates?queries=5")]

    holder = {}

    def lock():
        # The server writes all the time: wait for the lock as any other writer would.
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
        db.execute("BEGIN EXCLUSIVE")
        holder["db"] = db

    def unlock():
        down_until = time.monotonic()
        holder.pop("db").close()  # closing rolls the open transaction back
        return down_until, time.monotonic()

    try:
        outage_run(ctx, result, "sqlite_lock", served, load_args=load_args,
                   probe_path="/updates?queries=1", begin=lock, end=unlock, **timing)
    finally:
        if "db" in holder:
            holder.pop("db").close()

    if not immutable_supported(directory):
        result.note("sqlite_immutable skipped: chattr +i is not supported on "
                    f"{directory}'s filesystem (or this user lacks CAP_LINUX_IMMUTABLE)")
        served.stop()
        return
    files = [path, path + "-wal"]
    frozen = []

    def freeze():
        frozen.extend(files)  # first: a chattr that fails halfway still gets undone below
        chattr("+i", *files)

    def thaw():
        down_until = time.monotonic()
        chattr("-i", *files)
        frozen.clear()
        return down_until, time.monotonic()

    try:
        outage_run(ctx, result, "sqlite_immutable", served, load_args=load_args,
                   probe_path="/updates?queries=1", begin=freeze, end=thaw, **timing)
    finally:
        if frozen:
            subprocess.run(["chattr", "-i", *frozen], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=20)
    served.stop()
    shutil.rmtree(directory, ignore_errors=True)


# -- SQLite on a stalled disk ----------------------------------------------------------------
@contextlib.contextmanager
def signals_deferred(*signums):
    """SIGINT or the runner's SIGALRM arriving inside the block takes effect at its end: the block
    (thawing a frozen filesystem, unmounting it) must run to completion first. The Python-level
    handler is swapped, so it holds whichever thread the kernel delivered the signal to."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived = []
    previous = {signum: signal.signal(signum, lambda signum, frame: arrived.append(signum))
                for signum in signums}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in arrived:
            if callable(previous[signum]):
                previous[signum](signum, None)  # raises KeyboardInterrupt, or the runner's Timeout


def system_tool(*argv, timeout=60):
    """Runs a mount or freeze tool to its end in a session of its own (a Ctrl-C at the terminal
    must not kill a thaw halfway); returns (exit code, stderr)."""
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, start_new_session=True, timeout=timeout)
    return done.returncode, done.stderr.decode(errors="replace").strip()


class StalledDisk:
    """An ext4 image loop-mounted under `directory`, whose writes freeze() blocks in the
    kernel (writers sit in D state, as on a stalled disk) until thaw(). A process blocked there
    cannot be killed, so close() (and outage_run's undo) thaws before anything else, then
    unmounts, which detaches the loop device; neither may be cut short by a signal."""

    # Sparse: what it takes on the disk is what mkfs (a 16 MB journal) and the server write.
    # Before the checkpointer and the writers took turns, SQLite's WAL grew by gigabytes under
    # this /updates load (1-3.4 GB); it now stays a few MB (WAL_BOUND_MB is checked), but a
    # regression must show as that expectation failing, not as a full filesystem answering 503
    # of its own and hiding the stall. The image's size caps what the server can take of the
    # real disk.
    IMAGE_GB = 16
    JOURNAL_MB = 16

    def __init__(self, directory):
        self.image = os.path.join(directory, "stall.img")
        self.mount_point = os.path.join(directory, "stall-mnt")
        self.mounted = self.frozen = False

    def mount(self):
        """Makes and mounts the filesystem; returns None, or why it cannot be done here."""
        if not os.path.exists("/dev/loop-control"):
            return "no loop device (/dev/loop-control is missing)"
        os.makedirs(self.mount_point)
        with open(self.image, "wb") as f:
            f.truncate(self.IMAGE_GB << 30)
        code, error = system_tool("mkfs.ext4", "-q", "-F", "-J", f"size={self.JOURNAL_MB}",
                                  self.image)
        if code != 0:
            return f"mkfs.ext4 failed: {error}"
        with signals_deferred(signal.SIGINT, signal.SIGALRM):
            code, error = system_tool("mount", "-o", "loop", self.image, self.mount_point)
            self.mounted = code == 0
        return None if code == 0 else f"mount -o loop failed (no loop device here?): {error}"

    def freeze(self):
        self.frozen = True  # first: a freeze interrupted halfway is still undone
        code, error = system_tool("fsfreeze", "-f", self.mount_point)
        if code != 0:
            raise AttackError(f"fsfreeze -f {self.mount_point} failed: {error}")

    def thaw(self):
        with signals_deferred(signal.SIGINT, signal.SIGALRM):
            if self.frozen:
                # Fails (EINVAL) only when the filesystem is not frozen: a freeze cut short.
                system_tool("fsfreeze", "-u", self.mount_point)
                self.frozen = False

    def close(self, served):
        """Thaws, stops `served` (its open database keeps the filesystem busy), unmounts; returns
        what is left behind (a mount, a loop device) as a failure sentence, or None."""
        with signals_deferred(signal.SIGINT, signal.SIGALRM):
            self.thaw()
            left = []
            if served is not None:
                try:
                    served.stop()
                except subprocess.TimeoutExpired:
                    left.append(f"the server (pid {served.pid}) did not exit, even on SIGKILL")
            if self.mounted:
                code, error = system_tool("umount", self.mount_point)
                if code != 0:
                    # Detached from the tree now, released (with its loop device) when unused.
                    system_tool("umount", "-l", self.mount_point)
                    left.append(f"umount {self.mount_point} failed ({error}); lazily unmounted")
                self.mounted = False
            loops = subprocess.run(["losetup", "-j", self.image], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, start_new_session=True,
                                   timeout=20).stdout.decode().strip()
            if loops:
                left.append(f"loop device still attached: {loops}")
            elif os.path.exists(self.image):
                os.unlink(self.image)  # gigabytes; the children's output stays for a failure
            return "; ".join(left) or None


def sqlite_stalled(ctx, result):
    """The SQLite database on a disk that stalls: every write blocks in the kernel for 5 s."""
    if os.geteuid() != 0:
        result.note("sqlite_stalled skipped: mounting a filesystem image and fsfreeze need root")
        return
    ctx.need_tools("mkfs.ext4", "mount", "umount", "fsfreeze", "losetup")
    disk = StalledDisk(os.path.join(ctx.scratch, "sqlite-stalled"))
    os.makedirs(os.path.dirname(disk.image), exist_ok=True)
    served = None
    try:
        why_not = disk.mount()
        if why_not:
            result.note(f"sqlite_stalled skipped: {why_not}")
            return
        path = os.path.join(disk.mount_point, "stall.db")
        served = ctx.serve("--db", f"sqlite:{path}", "--db-timeout", f"{SQLITE_DB_TIMEOUT_S:g}s",
                           threads=1, name="serve-sqlite-stalled")
        if not wait_until(lambda: Probe(served.port, "/updates?queries=1").one() == 200, 30):
            raise AttackError("the server never answered /updates with 200 before the stall")

        def thaw():
            down_until = time.monotonic()
            disk.thaw()
            return down_until, time.monotonic()

        short = ctx.short
        outage_run(ctx, result, "sqlite_stalled", served,
                   load_args=["-c", "8", served.url("/updates?queries=5")],
                   probe_path="/updates?queries=1", begin=disk.freeze, end=thaw, undo=disk.thaw,
                   hello_url=served.url("/"), db_timeout_s=SQLITE_DB_TIMEOUT_S,
                   before_s=1.5 if short else 10, after_s=2.5 if short else 10,
                   restart_allowance_s=0.5)
        wal = path + "-wal"
        wal_mb = result.figure("sqlite_stalled_wal_mb",
                               round(os.path.getsize(wal) / 1e6) if os.path.exists(wal) else 0)
        result.expect(wal_mb <= WAL_BOUND_MB,
                      f"sqlite_stalled: the WAL grew to {wal_mb} MB (bound {WAL_BOUND_MB} MB): the "
                      "checkpoints no longer start it over under steady writes")
    finally:
        left = disk.close(served)
        if left:
            result.failures.append(f"sqlite_stalled: {left}")


def run(ctx, result):
    postgres_outage(ctx, result)
    sqlite_outages(ctx, result)
    sqlite_stalled(ctx, result)
