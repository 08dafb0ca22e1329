#!/usr/bin/env python3
"""Checks that contestants answer correctly, before anything is timed (until `ringside compare
--validate` lands; docs/contestants.md).

For each runnable contestant (or the NAMES given): builds it if its manifest says how, starts it
as the manifest says (own process group, a free port, {threads} from --threads), waits for its
ready_path with a bound, checks every route it claims (status, body — JSON compared as JSON —,
Content-Type, Content-Length or chunked framing, Date, keep-alive across 100 requests on one
connection, 16 pipelined requests answered in order, a request split across writes), then stops it
with its stop_signal and fails it unless every process of its group is gone within 5 s (SIGKILL
then). Exit 0 when every contestant checked passed, 1 otherwise, 2 on a bad argument.

    contestants/check.py [--db-url URL | --ringside PATH] [--threads N] [--contestants DIR] [NAMES...]

Without --db-url it starts `ringside db temp` (a seeded throwaway PostgreSQL) for the run.
Python 3.11+ standard library only.
"""
import argparse
import email.utils
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
contestants_dir = HERE  # --contestants moves it (the checker's own tests)

# Generous bounds: a loaded 2-core machine, a first start that compiles or caches.
READY_TIMEOUT = 60.0
BUILD_TIMEOUT = 1800.0
IO_TIMEOUT = 15.0
STOP_GRACE = 5.0
DB_START_TIMEOUT = 120.0

KEEP_ALIVE_REQUESTS = 100
PIPELINED_REQUESTS = 16

PLACEHOLDERS = ("port", "threads", "db_url", "dir", "workdir", "ringside")
FIELDS = {
    "name": str, "description": str, "language": str, "runtime": str, "available": bool,
    "reason": str, "requires": list, "install": str, "version": list, "build": list,
    "build_inputs": list, "start": list, "ready_path": str, "routes": list,
    "threads": (str, int), "db_pool": int, "stop_signal": str, "env": dict,
}

HELLO = b"Hello World!"
MESSAGE = {"message": "Hello, World!"}


def user(n):
    return {"id": n, "name": f"User {n}", "email": f"user{n}@example.com",
            "created_at": f"2024-01-01T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z"}


# (path, status, media type, expected body: bytes exactly, a dict compared as JSON, or "error":
# a JSON object with an "error" member). Users' created_at is 2024-01-01T00:00:00Z + id seconds.
ROUTE_CASES = {
    "/": [("/", 200, "text/plain", HELLO)],
    "/json": [("/json", 200, "application/json", MESSAGE)],
    "/users/:id": [
        ("/users/1", 200, "application/json", user(1)),
        ("/users/4242", 200, "application/json", user(4242)),
        ("/users/10000", 200, "application/json", user(10000)),
        ("/users/10001", 404, "application/json", "error"),
        ("/users/2147483648", 404, "application/json", "error"),
        ("/users/9223372036854775807", 404, "application/json", "error"),
        ("/users/9223372036854775808", 400, "application/json", "error"),
        ("/users/0", 400, "application/json", "error"),
        ("/users/-1", 400, "application/json", "error"),
        ("/users/01", 400, "application/json", "error"),
        ("/users/abc", 400, "application/json", "error"),
    ],
}


class CheckFailed(Exception):
    pass


class ManifestError(Exception):
    pass


# --- manifests -------------------------------------------------------------------------------

def load_manifest(folder):
    path = folder / "contestant.toml"
    try:
        with open(path, "rb") as file:
            manifest = tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{path}: {error}") from None
    for field, kind in FIELDS.items():
        if field not in manifest:
            raise ManifestError(f"{path}: field '{field}' is missing")
        if not isinstance(manifest[field], kind) or isinstance(manifest[field], bool) != (kind is bool):
            raise ManifestError(f"{path}: field '{field}' has the wrong type")
    if manifest["name"] != folder.name:
        raise ManifestError(f"{path}: name '{manifest['name']}' is not the folder's name")
    threads = manifest["threads"]
    if threads != "param" and not (isinstance(threads, int) and threads >= 1):
        raise ManifestError(f"{path}: threads must be \"param\" or a positive integer")
    if not hasattr(signal, manifest["stop_signal"]):
        raise ManifestError(f"{path}: stop_signal '{manifest['stop_signal']}' is no signal")
    unknown = [route for route in manifest["routes"] if route not in ROUTE_CASES]
    if unknown:
        raise ManifestError(f"{path}: routes {unknown} are not ones check.py knows")
    return manifest


def all_contestants():
    return sorted(p.parent.name for p in contestants_dir.glob("*/contestant.toml"))


def substitute(text, values):
    for key in PLACEHOLDERS:
        text = text.replace("{" + key + "}", values[key])
    return text


def missing_requirements(manifest, folder):
    missing = []
    for need in manifest["requires"]:
        if "/" in need:
            if not (folder / need).exists():
                missing.append(need)
        elif not any(os.access(Path(d) / need, os.X_OK) for d in os.get_exec_path()):
            missing.append(need)
    return missing


def version_line(manifest, folder, values):
    if not manifest["version"]:
        return ""
    argv = [substitute(a, values) for a in manifest["version"]]
    try:
        result = subprocess.run(argv, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"(version: {error})"
    lines = result.stdout.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else ""


# --- a strict HTTP/1.1 client ----------------------------------------------------------------

class Response:
    def __init__(self, status, headers, body, framing):
        self.status, self.headers, self.body, self.framing = status, headers, body, framing

    def header(self, name):
        return self.headers.get(name.lower())


class Connection:
    """One keep-alive connection; reads responses one at a time from a buffer."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=IO_TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def close(self):
        self.sock.close()

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise CheckFailed("the server closed the connection")
        self.buffer += chunk

    def _take_line(self):
        while b"\r\n" not in self.buffer:
            if len(self.buffer) > 65536:
                raise CheckFailed("a response line longer than 64 KiB")
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _take(self, count):
        while len(self.buffer) < count:
            self._fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_response(self, method="GET"):
        status_line = self._take_line().decode("latin-1")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or parts[0] != "HTTP/1.1" or not parts[1].isdigit():
            raise CheckFailed(f"not an HTTP/1.1 status line: {status_line!r}")
        headers = {}
        while True:
            line = self._take_line().decode("latin-1")
            if not line:
                break
            name, colon, value = line.partition(":")
            if not colon or name != name.strip():
                raise CheckFailed(f"malformed header line {line!r}")
            name = name.lower()
            if name in headers and name in ("content-length", "content-type", "date"):
                raise CheckFailed(f"header {name} repeated")
            headers[name] = value.strip()
        status = int(parts[1])
        coding = headers.get("transfer-encoding", "").lower()
        if method == "HEAD" or status in (204, 304):
            return Response(status, headers, b"", "none")
        if coding:
            if coding != "chunked":
                raise CheckFailed(f"unexpected Transfer-Encoding {coding!r}")
            if "content-length" in headers:
                raise CheckFailed("both Content-Length and Transfer-Encoding")
            return Response(status, headers, self._read_chunked(), "chunked")
        length = headers.get("content-length")
        if length is None or not length.isdigit():
            raise CheckFailed(f"no Content-Length and no chunked framing (headers {headers})")
        return Response(status, headers, self._take(int(length)), "content-length")

    def _read_chunked(self):
        body = b""
        while True:
            size_text = self._take_line().split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise CheckFailed(f"bad chunk size {size_text!r}") from None
            if size == 0:
                while self._take_line():
                    pass  # trailers
                return body
            body += self._take(size)
            if self._take(2) != b"\r\n":
                raise CheckFailed("chunk data not followed by CRLF")


def request_bytes(path):
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ringside-check\r\n\r\n".encode()


def http_get(port, path):
    connection = Connection(port)
    try:
        connection.send(request_bytes(path))
        return connection.read_response()
    finally:
        connection.close()


def verify(response, case):
    path, status, media_type, expected = case
    where = f"GET {path}"
    if response.status != status:
        raise CheckFailed(f"{where}: status {response.status}, expected {status} "
                          f"(body {response.body[:200]!r})")
    content_type = response.header("content-type")
    if content_type is None:
        raise CheckFailed(f"{where}: no Content-Type")
    if content_type.split(";")[0].strip().lower() != media_type:
        raise CheckFailed(f"{where}: Content-Type {content_type!r}, expected {media_type}")
    date = response.header("date")
    if date is None:
        raise CheckFailed(f"{where}: no Date header")
    try:
        parsed = email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError):
        parsed = None
    if parsed is None or abs(parsed.timestamp() - time.time()) > 300:
        raise CheckFailed(f"{where}: Date {date!r} is not an HTTP date near now")
    if response.header("connection") and "close" in response.header("connection").lower():
        raise CheckFailed(f"{where}: Connection: close on a keep-alive request")
    if isinstance(expected, bytes):
        if response.body != expected:
            raise CheckFailed(f"{where}: body {response.body[:200]!r}, expected {expected!r}")
        return
    try:
        document = json.loads(response.body)
    except ValueError:
        raise CheckFailed(f"{where}: body is not JSON: {response.body[:200]!r}") from None
    if expected == "error":
        if not isinstance(document, dict) or "error" not in document:
            raise CheckFailed(f"{where}: expected a JSON object with \"error\", got {document!r}")
    elif document != expected:
        raise CheckFailed(f"{where}: JSON {document!r}, expected {expected!r}")


# --- the checks of one running contestant ----------------------------------------------------

def check_routes(port, routes):
    cases = [case for route in routes for case in ROUTE_CASES[route]]
    for case in cases:
        verify(http_get(port, case[0]), case)

    # The 200 cases, in turn, on one connection.
    rotation = [case for case in cases if case[1] == 200]
    connection = Connection(port)
    try:
        for i in range(KEEP_ALIVE_REQUESTS):
            case = rotation[i % len(rotation)]
            connection.send(request_bytes(case[0]))
            try:
                verify(connection.read_response(), case)
            except (CheckFailed, OSError) as error:
                raise CheckFailed(f"keep-alive request {i + 1} of {KEEP_ALIVE_REQUESTS}: {error}")

        # Pipelined: all in one write, answered in order, on the same connection.
        batch = [rotation[i % len(rotation)] for i in range(PIPELINED_REQUESTS)]
        connection.send(b"".join(request_bytes(case[0]) for case in batch))
        for i, case in enumerate(batch):
            try:
                verify(connection.read_response(), case)
            except (CheckFailed, OSError) as error:
                raise CheckFailed(f"pipelined request {i + 1} of {PIPELINED_REQUESTS}: {error}")

        # One request cut inside the request line and inside a header, in three writes.
        case = rotation[-1]
        data = request_bytes(case[0])
        for piece in (data[:5], data[5:30], data[30:]):
            connection.send(piece)
            time.sleep(0.05)  # so the pieces leave as separate segments; not synchronisation
        try:
            verify(connection.read_response(), case)
        except (CheckFailed, OSError) as error:
            raise CheckFailed(f"request split across writes: {error}")
    finally:
        connection.close()


def group_processes(pgid):
    """Live (not zombie) processes whose process group is pgid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is the state, fields[2] the process group.
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def wait_ready(process, port, ready_path, log):
    deadline = time.monotonic() + READY_TIMEOUT
    last = "no answer"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CheckFailed(f"exited with {process.returncode} before it was ready; "
                              f"its output ends: {tail(log)}")
        try:
            response = http_get(port, ready_path)
            if response.status == 200:
                return
            last = f"status {response.status}"
        except (OSError, CheckFailed) as error:
            last = str(error)
        time.sleep(0.1)
    raise CheckFailed(f"not ready within {READY_TIMEOUT:.0f}s ({last}); its output ends: {tail(log)}")


def stop(process, stop_signal):
    """Stops the group; returns a failure text, or None when it stopped cleanly in time."""
    pgid = process.pid
    try:
        process.send_signal(getattr(signal, stop_signal))
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + STOP_GRACE
    while time.monotonic() < deadline:
        process.poll()
        if process.returncode is not None and not group_processes(pgid):
            return None
        time.sleep(0.05)
    left = group_processes(pgid)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    return (f"still running {STOP_GRACE:.0f}s after {stop_signal} (pids {left}); killed")


def tail(log, lines=5):
    try:
        text = Path(log).read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no output)"
    return " | ".join(text[-lines:]) or "(no output)"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_build(manifest, folder, values):
    if not manifest["build"]:
        return
    argv = [substitute(a, values) for a in manifest["build"]]
    try:
        result = subprocess.run(argv, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, timeout=BUILD_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CheckFailed(f"build {argv} failed: {error}") from None
    if result.returncode != 0:
        output = result.stdout.decode(errors="replace").strip().splitlines()
        raise CheckFailed(f"build {argv} exited {result.returncode}: {' | '.join(output[-5:])}")


def check_contestant(name, manifest, args, db_url):
    folder = contestants_dir / name
    with tempfile.TemporaryDirectory(prefix=f"ringside-check-{name}-") as workdir:
        values = {"port": str(free_port()), "threads": str(args.threads), "db_url": db_url,
                  "dir": str(folder), "workdir": workdir, "ringside": str(args.ringside)}
        version = version_line(manifest, folder, values)
        run_build(manifest, folder, values)
        argv = [substitute(a, values) for a in manifest["start"]]
        env = dict(os.environ)
        env.update({key: substitute(str(value), values) for key, value in manifest["env"].items()})
        log = Path(workdir) / "output.log"
        with open(log, "wb") as output:
            try:
                process = subprocess.Popen(argv, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                           stdout=output, stderr=subprocess.STDOUT,
                                           start_new_session=True)
            except OSError as error:
                raise CheckFailed(f"cannot start {argv}: {error}") from None
        failure = None
        try:
            port = int(values["port"])
            wait_ready(process, port, manifest["ready_path"], log)
            check_routes(port, manifest["routes"])
        except (CheckFailed, OSError) as error:
            failure = str(error)
        finally:
            stopped = stop(process, manifest["stop_signal"])
        if failure is None and stopped is not None:
            failure = stopped
        if failure is not None:
            raise CheckFailed(failure)
        return version


# --- the database ----------------------------------------------------------------------------

class TempDatabase:
    """`ringside db temp` in its own process group, for the run."""

    def __init__(self, ringside):
        self.process = subprocess.Popen([str(ringside), "db", "temp"], stdout=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        data = b""
        deadline = time.monotonic() + DB_START_TIMEOUT
        while b"\n" not in data:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self.process.stdout], [], [], max(remaining, 0))
            chunk = os.read(self.process.stdout.fileno(), 4096) if ready else b""
            if not chunk:
                self.close()
                raise CheckFailed("`ringside db temp` printed no URL "
                                  f"within {DB_START_TIMEOUT:.0f}s" if not ready else
                                  "`ringside db temp` exited without a URL")
            data += chunk
        self.url = data.split(b"\n", 1)[0].decode().strip()

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process.stdout.close()


# --- main ------------------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    def error(self, message):
        # One line naming what is wrong, exit 2, as every ringside tool does.
        print(f"check.py: {message}", file=sys.stderr)
        sys.exit(2)


def parse_args(argv):
    parser = Parser(description="Checks contestants for correctness.")
    parser.add_argument("names", nargs="*", help="contestants to check (default: every runnable one)")
    parser.add_argument("--db-url", help="a seeded PostgreSQL URL (default: start `ringside db temp`)")
    parser.add_argument("--ringside", default=str(REPO / "build/release/apps/ringside"),
                        help="the ringside binary ({ringside}, and `db temp`)")
    parser.add_argument("--threads", type=int, default=2, help="{threads} (1-64, default 2)")
    parser.add_argument("--contestants", default=str(HERE),
                        help="the folder of contestant folders (default: this script's)")
    args = parser.parse_args(argv)
    if not Path(args.contestants).is_dir():
        parser.error(f"--contestants: {args.contestants} is not a directory")
    if not 1 <= args.threads <= 64:
        parser.error(f"--threads must be 1-64, got {args.threads}")
    args.ringside = Path(args.ringside).resolve()
    return args, parser


def main(argv):
    global contestants_dir
    args, parser = parse_args(argv)
    contestants_dir = Path(args.contestants).resolve()
    known = all_contestants()
    unknown = [name for name in args.names if name not in known]
    if unknown:
        parser.error(f"no contestant named {', '.join(unknown)} (known: {', '.join(known)})")
    explicit = bool(args.names)
    names = args.names or known

    failures = 0
    plan = []
    for name in names:
        try:
            manifest = load_manifest(contestants_dir / name)
        except ManifestError as error:
            print(f"FAIL {name}: {error}")
            failures += 1
            continue
        if not manifest["available"]:
            print(f"n/a  {name}: not available: {manifest['reason']}")
            if explicit:
                failures += 1
            continue
        missing = missing_requirements(manifest, contestants_dir / name)
        if "{ringside}" in " ".join(manifest["start"]) and not os.access(args.ringside, os.X_OK):
            missing.append(str(args.ringside))
        if missing:
            print(f"{'FAIL' if explicit else 'skip'} {name}: missing {', '.join(missing)} "
                  f"(install: {manifest['install']})")
            failures += explicit
            continue
        plan.append((name, manifest))

    database = None
    if plan and not args.db_url and any(m["db_pool"] > 0 for _, m in plan):
        try:
            database = TempDatabase(args.ringside)
        except (OSError, CheckFailed) as error:
            print(f"FAIL: cannot start a database with {args.ringside} db temp: {error}")
            return 1
    db_url = args.db_url or (database.url if database else "")
    try:
        for name, manifest in plan:
            started = time.monotonic()
            try:
                version = check_contestant(name, manifest, args, db_url)
                print(f"PASS {name} ({version}) in {time.monotonic() - started:.1f}s", flush=True)
            except CheckFailed as error:
                print(f"FAIL {name}: {error}", flush=True)
                failures += 1
    finally:
        if database:
            database.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
