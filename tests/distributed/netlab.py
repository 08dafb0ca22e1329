"""A small network of machines on one host, for testing load from many machines: network
namespaces joined by veth pairs to a bridge that lives in a namespace of its own, with addresses
from one private /24 that exist only inside them. The root namespace gets no address, no link
and no route to them, and no namespace has a route out.

    with Lab(["ctl", "srv", "gen1", "gen2"]) as lab:
        lab.address("srv")                         # "10.213.<random>.10"
        lab.popen("srv", [...])                    # a process inside srv, killed at teardown
        lab.run("ctl", ["ping", ...])              # bounded

Teardown (also when the body fails, and on SIGTERM) kills every process found in each namespace
by PID, deletes the namespaces (which deletes their links and the bridge) and then checks that
nothing is left: `leftovers()` lists whatever is, for the test to assert on.
"""
import os
import random
import secrets
import signal
import subprocess
import time

IP = "ip"
COMMAND_TIMEOUT = 20.0
# Host numbers inside the /24, by role; others get 20, 21, ...
HOSTS = {"ctl": 2, "srv": 10, "gen1": 11, "gen2": 12}


class NamespacesUnavailable(Exception):
    """This machine cannot give the test network namespaces (not root, no `ip netns`)."""


def ip(*args, timeout=COMMAND_TIMEOUT, check=True):
    result = subprocess.run([IP, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=timeout, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result


def netns_names():
    return {line.split()[0] for line in ip("netns", "list").stdout.splitlines() if line.strip()}


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie that no one has reaped yet is gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Lab:
    def __init__(self, roles):
        self.suffix = secrets.token_hex(3)
        self.subnet = f"10.213.{random.randrange(256)}"
        self.roles = list(roles)
        self.bridge_ns = f"rs-br-{self.suffix}"
        self.ns = {role: f"rs-{role}-{self.suffix}" for role in self.roles}
        self.created = []
        self.processes = []
        self.pids_seen = set()
        self._old_sigterm = None

    # ---- building

    def __enter__(self):
        if os.geteuid() != 0:
            raise NamespacesUnavailable("not root: network namespaces need CAP_SYS_ADMIN")
        try:
            ip("netns", "add", self.bridge_ns)
        except (FileNotFoundError, RuntimeError) as error:
            raise NamespacesUnavailable(f"cannot create a network namespace: {error}") from error
        self.created.append(self.bridge_ns)
        self._old_sigterm = signal.signal(signal.SIGTERM, self._on_sigterm)
        try:
            self._build()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(self, *exc):
        self.teardown()
        return False

    def _on_sigterm(self, signum, frame):
        raise KeyboardInterrupt("SIGTERM: tearing the test network down")

    def _build(self):
        ip("-n", self.bridge_ns, "link", "set", "lo", "up")
        ip("-n", self.bridge_ns, "link", "add", "br0", "type", "bridge")
        ip("-n", self.bridge_ns, "link", "set", "br0", "up")
        for role in self.roles:
            ns = self.ns[role]
            ip("netns", "add", ns)
            self.created.append(ns)
            # Both ends are made inside the namespaces: the root namespace never holds either.
            port = f"v-{role}"[:15]
            ip("-n", self.bridge_ns, "link", "add", port, "type", "veth", "peer", "name", "eth0",
               "netns", ns)
            ip("-n", self.bridge_ns, "link", "set", port, "master", "br0", "up")
            ip("-n", ns, "link", "set", "lo", "up")
            ip("-n", ns, "addr", "add", f"{self.address(role)}/24", "dev", "eth0")
            ip("-n", ns, "link", "set", "eth0", "up")

    def address(self, role):
        if role in HOSTS:
            number = HOSTS[role]
        else:
            number = 20 + [r for r in self.roles if r not in HOSTS].index(role)
        return f"{self.subnet}.{number}"

    # ---- processes

    def command(self, role, argv):
        return [IP, "netns", "exec", self.ns[role], *argv]

    def popen(self, role, argv, **kwargs):
        """Starts argv inside the role's namespace (`ip netns exec` execs it: the PID is argv's)."""
        process = subprocess.Popen(self.command(role, argv), **kwargs)
        self.processes.append(process)
        self.pids_seen.add(process.pid)
        return process

    def run(self, role, argv, timeout, **kwargs):
        return subprocess.run(self.command(role, argv), timeout=timeout, **kwargs)

    def pids(self, ns):
        result = ip("netns", "pids", ns, check=False)
        return [int(p) for p in result.stdout.split()] if result.returncode == 0 else []

    # ---- teardown

    def _kill_namespace_processes(self, ns, deadline):
        """SIGTERM, then SIGKILL, every process in ns, by PID; waits until none is left."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self.pids(ns):
                self.pids_seen.add(pid)
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            grace = time.monotonic() + (3.0 if sig == signal.SIGTERM else 10.0)
            while time.monotonic() < min(grace, deadline):
                self._reap()
                if not [p for p in self.pids(ns) if pid_alive(p)]:
                    return
                time.sleep(0.05)

    def _reap(self):
        for process in self.processes:
            process.poll()

    def teardown(self):
        deadline = time.monotonic() + 60.0
        try:
            for ns in reversed(self.created):
                self._kill_namespace_processes(ns, deadline)
            for process in self.processes:
                if process.poll() is None:
                    process.kill()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
            for ns in reversed(self.created):
                ip("netns", "del", ns, check=False)
        finally:
            if self._old_sigterm is not None:
                signal.signal(signal.SIGTERM, self._old_sigterm)
                self._old_sigterm = None

    def leftovers(self):
        """What teardown should have removed and did not: a list of descriptions."""
        left = [f"namespace {ns}" for ns in netns_names() if self.suffix in ns]
        links = ip("-o", "link", "show").stdout
        left += [f"root-namespace link: {line.strip()}" for line in links.splitlines()
                 if self.suffix in line]
        addresses = ip("-o", "addr", "show").stdout
        left += [f"root-namespace address: {line.strip()}" for line in addresses.splitlines()
                 if f" {self.subnet}." in line]
        left += [f"process {pid}" for pid in sorted(self.pids_seen) if pid_alive(pid)]
        return left
