"""What every attack shares: the context it runs in (binaries, scratch space, cores, children it
started) and the result it returns (figures, failed expectations).

Every child an attack starts goes through Context.spawn: its own process group, its output in a
file under the attack's scratch directory, and an environment tag (RINGSIDE_TORTURE) by which the
runner finds anything left running after the attack, a failure of the attack in itself.
"""
import dataclasses
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

# The integration tests' helpers (bounded waits, raw HTTP) serve the attacks too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integration"))
from ringside_testlib import accepts, wait_until  # noqa: E402,F401  (wait_until: the suite's only wait)

TAG_VARIABLE = "RINGSIDE_TORTURE"
LISTENING = re.compile(rb"listening on http://\S+:(\d+) ")
LISTENING_TLS = re.compile(rb"listening on https://\S+:(\d+) ")


class AttackError(Exception):
    """An attack cannot go on (a tool is missing, a server did not start): the attack fails with
    this message, and the runner goes on to the next one."""


@dataclasses.dataclass
class Result:
    """What an attack measured (figures, printed in insertion order as name=value) and which of its
    expectations failed (each a sentence saying what was expected and what happened)."""
    figures: dict = dataclasses.field(default_factory=dict)
    failures: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)

    def figure(self, name, value):
        self.figures[name] = value
        return value

    def expect(self, condition, failure):
        """Records `failure` unless condition holds; returns condition."""
        if not condition:
            self.failures.append(failure)
        return bool(condition)

    def note(self, text):
        """A line printed under the figures (a peer's figures, what was skipped and why)."""
        self.notes.append(text)

    @property
    def passed(self):
        return not self.failures


class Child:
    """A process an attack started, in its own process group, its output in files."""

    def __init__(self, name, argv, process, out_path, err_path):
        self.name, self.argv, self.process = name, argv, process
        self.out_path, self.err_path = out_path, err_path

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process.poll() is None

    def output(self):
        with open(self.out_path, "rb") as f:
            return f.read()

    def errors(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode(errors="replace")

    def signal(self, signum):
        if self.alive():
            self.process.send_signal(signum)

    def wait(self, timeout):
        """Waits up to timeout seconds; returns the exit code, or None if it is still running."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, timeout=15.0):
        """SIGTERM, then SIGKILL to the whole group if it has not exited within timeout."""
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            if self.wait(timeout) is None:
                kill_group(self.pid)
                self.process.wait(timeout=10)
        return self.process.returncode


class Served(Child):
    """A `ringside serve` (or any server printing ringside's start-up line) with its port, and
    with --tls-port its TLS port."""
    port = None
    tls_port = None

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Context:
    """One attack's world. `short` is the test command's bounded version of the attack."""

    def __init__(self, *, root, bin, asan_bin, fuzz_dir, short, scratch, tag, attack_name):
        self.root, self.bin, self.asan_bin, self.fuzz_dir = root, bin, asan_bin, fuzz_dir
        self.short, self.scratch, self.tag, self.attack_name = short, scratch, tag, attack_name
        self.children = []
        self.started = time.monotonic()
        cores = sorted(os.sched_getaffinity(0))
        # Server on the first core, load on the second (like `ringside compare`); on one core both
        # share it and the attack's figures say so through `cores`.
        self.server_core = cores[0]
        self.load_core = cores[1] if len(cores) > 1 else cores[0]

    # -- progress -----------------------------------------------------------------------------
    def progress(self, message):
        """Long attacks say what they are doing (stderr, so figures stay one line each)."""
        elapsed = time.monotonic() - self.started
        print(f"  [{self.attack_name} {elapsed:5.1f}s] {message}", file=sys.stderr, flush=True)

    # -- tools --------------------------------------------------------------------------------
    def need_tools(self, *tools):
        missing = [tool for tool in tools if shutil.which(tool) is None]
        if missing:
            raise AttackError(f"missing {', '.join(missing)}: run scripts/setup (it installs them)")

    # -- children -----------------------------------------------------------------------------
    def spawn(self, argv, *, name, core=None, env=None, stdin=subprocess.DEVNULL, preexec_fn=None,
              cwd=None):
        """Starts argv in its own process group, pinned to `core` when given, output to files."""
        argv = [str(a) for a in argv]
        if core is not None:
            argv = ["taskset", "-c", str(core), *argv]
        environment = dict(os.environ if env is None else env)
        environment[TAG_VARIABLE] = self.tag
        index = len(self.children)
        out_path = os.path.join(self.scratch, f"{index:02d}-{name}.out")
        err_path = os.path.join(self.scratch, f"{index:02d}-{name}.err")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(argv, stdout=out, stderr=err, stdin=stdin, env=environment,
                                       start_new_session=True, preexec_fn=preexec_fn,
                                       cwd=cwd or self.scratch)
        child = Child(name, argv, process, out_path, err_path)
        self.children.append(child)
        return child

    def serve(self, *args, bin=None, threads=1, core="server", name="serve", env=None,
              preexec_fn=None, start_timeout=20.0):
        """Starts `ringside serve --port 0` and waits (bounded) for its start-up line."""
        if core == "server":
            core = self.server_core
        argv = [bin or self.bin, "serve", "--port", "0", "--threads", threads, *args]
        child = self.spawn(argv, name=name, core=core, env=env, preexec_fn=preexec_fn)
        served = Served(child.name, child.argv, child.process, child.out_path, child.err_path)
        self.children[-1] = served

        def port(pattern):
            match = pattern.search(served.output())
            return int(match.group(1)) if match else (None if served.alive() else -1)

        for pattern in (LISTENING, LISTENING_TLS) if "--tls-port" in map(str, args) else (LISTENING,):
            found = wait_until(lambda: port(pattern), start_timeout)
            if not found or found < 0:
                raise AttackError(f"{name} did not start within {start_timeout:.0f}s "
                                  f"(exit {served.process.poll()}): {served.errors()[-500:]}")
            if pattern is LISTENING:
                served.port = found
            else:
                served.tls_port = found
        return served

    def load(self, *args, core="load", timeout=120.0, name="load", bin=None):
        """Runs `ringside load --json ARGS` to its end (bounded); returns (exit code, document)."""
        if core == "load":
            core = self.load_core
        child = self.spawn([bin or self.bin, "load", "--json", *args], name=name, core=core)
        return load_report(child, timeout)

    def cleanup(self):
        """Stops every child still running (SIGTERM to the group, then SIGKILL); returns the
        processes carrying this attack's tag that were still alive afterwards (escaped their
        group), after killing them too."""
        for child in self.children:
            if child.alive():
                try:
                    os.killpg(child.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for child in self.children:
            if child.wait(5) is None:
                kill_group(child.pid)
                child.wait(5)
        wait_until(lambda: not tagged_processes(self.tag), 5)
        leftovers = tagged_processes(self.tag)
        for pid, _ in leftovers:  # reported as a failure, and not left behind either
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return leftovers


def load_report(child, timeout):
    """Waits (bounded) for a `ringside load --json` child; returns (exit code, parsed JSON)."""
    code = child.wait(timeout)
    if code is None:
        kill_group(child.pid)
        child.wait(10)
        raise AttackError(f"{child.name} ran past {timeout:.0f}s: {' '.join(child.argv)}")
    try:
        return code, json.loads(child.output())
    except ValueError:
        raise AttackError(f"{child.name} exited {code} without a JSON report: "
                          f"{child.errors()[-500:]}") from None


def get_status(port, path="/", timeout=5.0):
    """One GET on a new connection to 127.0.0.1:port; its status code, or None."""
    request = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    data = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(request)
            while b"\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    return int(data[9:12]) if data.startswith(b"HTTP/1.1 ") and len(data) >= 12 else None


# -- process figures -------------------------------------------------------------------------
def tagged_processes(tag):
    """(pid, command) of live processes whose environment carries RINGSIDE_TORTURE=tag."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue  # a zombie holds nothing; its parent reaps it
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                found.append((int(entry), f.read().replace(b"\0", b" ").decode(errors="replace")))
        except (FileNotFoundError, ProcessLookupError, PermissionError, IndexError):
            pass
    return found


def status_kb(pid, field):
    """A kB field of /proc/PID/status (VmRSS, VmHWM), or 0 when the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def cpu_ns(pid):
    """CPU time of every thread of `pid` so far, in nanoseconds (/proc/PID/task/*/schedstat: the
    scheduler's own accounting, not the 10 ms ticks of /proc/PID/stat), or 0 when it is gone."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return 0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile
    return total


def kernel_drops():
    """Machine-wide: (packets the kernel dropped at its input backlog, TCP retransmission
    timeouts) so far. On loopback a dropped segment waits for a retransmission timeout (200 ms
    and up): a latency step no server caused, seen on this shared machine under builds."""
    backlog = 0
    with open("/proc/net/softnet_stat") as f:
        for line in f:
            backlog += int(line.split()[1], 16)
    timeouts = 0
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            fields = dict(zip(names.split()[1:], values.split()[1:]))
            timeouts = int(fields.get("TCPTimeouts", 0))
    return backlog, timeouts


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError):
        return 0


def established(port):
    """TCP connections in ESTABLISHED state whose local port is `port` (the server's side)."""
    output = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True,
                            timeout=20).stdout
    return sum(1 for line in output.splitlines() if line.strip())

