"""SSH on a netlab.Lab, for the distributed tests: a client key, a host key per generator, an
ssh_config and known_hosts, all in one temp dir (never ~/.ssh), and an sshd per generator
namespace started from its own config.

    keys = Keys(lab, tmp, ["gen1", "gen2"])                   # control_master=False: no daemon
    start_sshds(lab, keys, ["gen1", "gen2"], tmp, timeout=20)  # waits for "Server listening on"
    ["ssh", "-F", keys.ssh_config, lab.address("gen1"), "true"]
"""
import os
import shutil
import subprocess
import sys
import time
import unittest

SSHD = "/usr/sbin/sshd"


def log(message):
    print(f"[distributed] {message}", file=sys.stderr, flush=True)


def wait_for_text(path, text, timeout, process):
    """Waits, bounded, until the file holds text (a readiness line); fails if process exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(path, errors="replace") as f:
            if text in f.read():
                return
        if process.poll() is not None:
            break
        time.sleep(0.05)
    with open(path, errors="replace") as f:
        raise AssertionError(f"no '{text}' in {path} within {timeout}s "
                             f"(exit {process.poll()}): {f.read()[-2000:]}")


def check_tools(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            raise AssertionError(f"{tool} is missing: run scripts/setup")
    if not os.access(SSHD, os.X_OK):
        raise AssertionError(f"{SSHD} is missing: run scripts/setup (openssh-server)")


class Keys:
    """An SSH client key, a host key per generator, configs and known_hosts, all in one temp dir.

    control_master: one shared connection per host, kept by a master process that outlives each
    ssh (Ansible's many steps want it); off, every ssh is its own connection and leaves nothing.
    """

    def __init__(self, lab, directory, generators, control_master=True):
        self.dir = directory
        self.client_key = os.path.join(directory, "id_ed25519")
        self.ssh_config = os.path.join(directory, "ssh_config")
        self.known_hosts = os.path.join(directory, "known_hosts")
        self._keygen(self.client_key, "ringside-test-controller")
        # The root user logs in with this key only (PermitRootLogin prohibit-password).
        shutil.copy(self.client_key + ".pub", os.path.join(directory, "authorized_keys"))
        with open(self.known_hosts, "w") as known:
            for gen in generators:
                host_key = os.path.join(directory, f"host_{gen}")
                self._keygen(host_key, gen)
                with open(host_key + ".pub") as pub:
                    known.write(f"{lab.address(gen)} {pub.read().strip()}\n")
        sharing = f"""  # One connection per generator for the whole run, as a controller would keep it: each of
  # Ansible's steps is an SSH session, and a handshake each costs seconds on a busy machine.
  # The masters live in the client's namespace; the teardown kills them with everything else.
  ControlMaster auto
  ControlPath {directory}/cm-%C
  ControlPersist 300
""" if control_master else ""
        with open(self.ssh_config, "w") as f:
            f.write(f"""Host *
  User root
  IdentityFile {self.client_key}
  IdentitiesOnly yes
  UserKnownHostsFile {self.known_hosts}
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  PasswordAuthentication no
{sharing}  ConnectTimeout 10
  ServerAliveInterval 5
""")

    @staticmethod
    def _keygen(path, comment):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path],
                       check=True, timeout=30, stdout=subprocess.DEVNULL)

    def sshd_config(self, lab, gen):
        path = os.path.join(self.dir, f"sshd_{gen}.conf")
        with open(path, "w") as f:
            f.write(f"""ListenAddress {lab.address(gen)}:22
HostKey {self.dir}/host_{gen}
AuthorizedKeysFile {self.dir}/authorized_keys
PidFile {self.dir}/sshd_{gen}.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# The keys live in a temp dir under /tmp (world-writable), which StrictModes refuses.
StrictModes no
Subsystem sftp internal-sftp
LogLevel INFO
""")
        return path


def start_sshds(lab, keys, generators, directory, timeout):
    """An sshd in each generator's namespace; returns {gen: process} once each listens."""
    # sshd insists on its privilege-separation directory, which Debian's unit makes at boot.
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    processes = {}
    for gen in generators:
        log_path = os.path.join(directory, f"sshd_{gen}.log")
        with open(log_path, "w") as out:
            processes[gen] = lab.popen(gen, [SSHD, "-D", "-e", "-f", keys.sshd_config(lab, gen)],
                                       stdout=out, stderr=subprocess.STDOUT)
        wait_for_text(log_path, "Server listening on", timeout, processes[gen])
    return processes


class LabTestCase(unittest.TestCase):
    """A test class whose setUpClass made `cls.lab` (a netlab.Lab) and `cls.tmp` (a directory):
    teardown removes both and fails the class if anything of the lab is left."""

    @classmethod
    def tearDownClass(cls):
        cls._stop()
        left = cls.lab.leftovers()
        if left:
            raise AssertionError("teardown left: " + "; ".join(left))
        log("teardown: no namespace, link, address or process left")

    @classmethod
    def _stop(cls):
        try:
            cls.lab.teardown()
        finally:
            shutil.rmtree(cls.tmp, ignore_errors=True)
