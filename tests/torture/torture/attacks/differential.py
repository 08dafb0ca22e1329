"""Attack 4: differential framing against real peers. Requests generated from the HTTP/1.1 grammar
and mutated where parsers are known to disagree (http_grammar.py) go to ringside serve, nginx and
node:http (peers.py), one connection per input and server: the bytes, then a half-close, then
everything the server writes until it closes. How many responses each wrote, and which of them
accepted a request, is how each framed the bytes.

A disagreement is an input that ringside frames differently from a peer that also accepts it (a
different sequence of accepted and refused responses: a request more or fewer, or a request
boundary elsewhere so that the probe behind the first request fares differently), an input ringside
accepts that both peers refuse, or an input on which ringside leaves the client waiting where both
peers answer or close. Each disagreement is either a known, justified difference (DIFFERENCES: what
RFC 9112/9110 allow ringside to accept and both peers refuse, or a peer's answer the RFC leaves
optional, each with its clause) or a failure. Every disagreeing input is written to
disagreements.txt in the scratch directory with its class; the notes show one input per class.

The run is reproducible: the seed is in the figures; set RINGSIDE_TORTURE_SEED (or edit SEED).
"""
import concurrent.futures
import dataclasses
import os
import random
import re
import socket
import time

from .. import http_grammar, peers

NUMBER = 4
NAME = "differential-framing"
TITLE = "generated and mutated requests to ringside, nginx and node:http: who frames what"
BUDGET_S = (120, 1500)

SEED = 4104
INPUTS = (6000, 100000)  # short, full
THREADS = 24
READ_TIMEOUT_S = 5.0  # per exchange: every server closes well within it after the half-close

# A status line, wherever it is in the bytes a server wrote (no body any server writes holds one).
STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5]\d\d) ")


@dataclasses.dataclass
class Outcome:
    """What one server wrote for one input."""
    statuses: list  # final (not 1xx) statuses in order
    closed: bool    # the server closed (or reset) the connection before the read bound

    @property
    def verdicts(self):
        return tuple(accepts(s) for s in self.statuses)

    @property
    def accepted(self):
        return bool(self.statuses) and accepts(self.statuses[0])

    def __str__(self):
        return "/".join(map(str, self.statuses)) + ("" if self.closed else " (left open)") or "-"


def accepts(status):
    """A request the server took as a request: answered by the application (200 from the peers;
    200, 404 or 405 from ringside's routes) rather than refused by the parser."""
    return 200 <= status < 400 or status in (404, 405)


def exchange(port, data, timeout):
    """Sends `data`, half-closes, reads until the server closes or `timeout`."""
    received = b""
    closed = False
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            try:
                sock.sendall(data)
                sock.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass  # it answered and closed before taking everything: read what it wrote
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                sock.settimeout(left)
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    break
                except ConnectionResetError:
                    closed = True
                    break
                if not chunk:
                    closed = True
                    break
                received += chunk
    except OSError as error:
        return Outcome([], False), f"connect: {error}"
    statuses = [int(m.group(1)) for m in STATUS_LINE.finditer(received) if m.group(1)[:1] != b"1"]
    return Outcome(statuses, closed), None


# -- known, justified differences ---------------------------------------------------------------
@dataclasses.dataclass
class Difference:
    name: str
    clause: str
    why: str
    kind: str        # the disagreement it explains: "framing" or "lenient"
    tags: tuple = ()  # mutations (tag prefixes) whose effect it is


# Where ringside, following RFC 9112/9110, and a peer part ways. A "lenient" difference (ringside
# accepts what both peers refuse) explains an input only when every mutation the input received
# is one of a documented difference or NEUTRAL: a combination with anything else is reported.
DIFFERENCES = [
    Difference(
        "method-is-any-token", "RFC 9110 section 9.1, RFC 9112 section 3",
        "a method is any token, case-sensitive; ringside routes an unknown one to 405/404, while "
        "nginx takes only A-Z, '_' and '-', and node only the methods it knows (the request ends "
        "in the same place for all three)",
        "lenient", ("method:lowercase", "method:mixedcase", "method:tchar", "method:long",
                    "method:unregistered", "method:preface")),
    Difference(
        "identical-content-lengths", "RFC 9110 section 8.6",
        "several Content-Length values (repeated fields or a list) with the same decimal value "
        "may be taken as that value; nginx and node refuse any repetition",
        "lenient", ("cl:duplicate-same", "cl:value:list-same", "cl:value:leading-zero")),
    Difference(
        "empty-list-elements", "RFC 9110 section 5.6.1.2",
        "a recipient MUST ignore empty list elements ('chunked,' is chunked, '5,' is 5); nginx "
        "answers 501 and node 400",
        "lenient", ("cl:value:list-trailing-comma", "te:value:chunked-comma",
                    "te:value:comma-chunked")),
    Difference(
        "whitespace-around-values", "RFC 9110 section 5.5, RFC 9112 section 5",
        "OWS (SP or HTAB) around a field value is not part of it: Content-Length '\\t5\\t' is 5 "
        "and Transfer-Encoding '\\tchunked' is chunked; nginx and node refuse a tab there",
        "lenient", ("cl:value:tab-around", "te:value:tab", "te:value:lead-space",
                    "te:value:trail-space")),
    Difference(
        "incomplete-request-at-close", "RFC 9112 section 8",
        "bytes that begin a request but end (the client closed) before its head or body is "
        "complete: a server MAY answer 400 before closing; ringside and nginx close, node "
        "answers 400. Both saw the same requests before it",
        "framing"),
]

# Mutations all three servers accept alone, or that change nothing about where a request ends:
# they neither explain nor spoil an explanation.
NEUTRAL = ("probe", "framing:", "cl:value:exact", "te:value:chunked", "version:1.0",
           "connection:close", "expect:100-continue", "body:unframed", "cl:counts-chunked",
           "cl:name:canonical", "te:name:canonical",
           # A valid length that is not the body's: it moves the request's end, which is what
           # the attack compares; every server accepts the value itself.
           "cl:value:short", "cl:value:long", "cl:value:zero", "cl:value:leading-zero")


def neutral(tag):
    # "te:value:chunked" is neutral, "te:value:chunked-comma" is not.
    return any(tag == n or (n.endswith(":") and tag.startswith(n)) for n in NEUTRAL)


def explain(item, kind, ringside, peer):
    """The Difference explaining one disagreement, or None."""
    if kind == "framing":
        # The peer answered one more time, a refusal at the end, where ringside closed: the
        # bytes after the requests both accepted were an incomplete request.
        if (ringside.closed and len(peer.verdicts) == len(ringside.verdicts) + 1
                and peer.verdicts[:-1] == ringside.verdicts and not peer.verdicts[-1]):
            return DIFFERENCES[-1]
        return None
    found = None
    for tag in item.tags:
        if neutral(tag):
            continue
        difference = next((d for d in DIFFERENCES if d.kind == kind
                           and any(tag.startswith(t) for t in d.tags)), None)
        if difference is None:
            return None
        found = found or difference
    return found


def disagreements(item, ringside, nginx, node):
    """[(kind, peer name, peer outcome)] for one input: 'framing' against each accepting peer
    whose verdicts differ, 'lenient' when ringside accepts what both refuse, 'hang' when ringside
    alone leaves the client waiting."""
    found = []
    if ringside.accepted:
        for peer_name, peer in (("nginx", nginx), ("node", node)):
            if peer.accepted and peer.closed and ringside.verdicts != peer.verdicts:
                found.append(("framing", peer_name, peer))
        if not nginx.accepted and not node.accepted:
            found.append(("lenient", "both", None))
    if not ringside.closed and nginx.closed and node.closed:
        found.append(("hang", "both", None))
    return found


def run(ctx, result):
    seed = int(os.environ.get("RINGSIDE_TORTURE_SEED", SEED))
    count = INPUTS[0] if ctx.short else INPUTS[1]
    timeout = READ_TIMEOUT_S
    served = ctx.serve(threads=1)
    nginx_child, nginx_port = peers.start_nginx(ctx)
    node_child, node_port = peers.start_node(ctx)
    ports = {"ringside": served.port, "nginx": nginx_port, "node": node_port}

    rng = random.Random(seed)
    inputs = [http_grammar.generate(rng) for _ in range(count)]
    ctx.progress(f"{count} inputs (seed {seed}) to ringside, nginx and node:http, "
                 f"{THREADS} at a time")

    def one(item):
        outcomes, errors = {}, []
        for server, port in ports.items():
            outcome, error = exchange(port, item.data, timeout)
            outcomes[server] = outcome
            if error:
                errors.append(f"{server} {error}")
        return outcomes, errors

    started = time.monotonic()
    per_peer = {"nginx": 0, "node": 0}
    counts = {"framing": 0, "lenient": 0, "hang": 0}
    documented = {}
    examples = {}
    unexplained = []
    lines = []
    connect_errors = []
    accepted = {name: 0 for name in ports}
    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        for index, (item, (outcomes, errors)) in enumerate(zip(inputs, pool.map(one, inputs))):
            if index and index % 5000 == 0:
                ctx.progress(f"{index} inputs done")
            connect_errors.extend(errors)
            for name, outcome in outcomes.items():
                accepted[name] += outcome.accepted
            found = disagreements(item, outcomes["ringside"], outcomes["nginx"], outcomes["node"])
            for kind, peer, peer_outcome in found:
                counts[kind] += 1
                if peer in per_peer:
                    per_peer[peer] += 1
                known = explain(item, kind, outcomes["ringside"], peer_outcome)
                if known:
                    documented[known.name] = documented.get(known.name, 0) + 1
                    examples.setdefault(known.name, item)
                else:
                    unexplained.append((kind, peer, item, outcomes))
                lines.append(f"{known.name if known else 'UNEXPLAINED'}: {kind} vs {peer} "
                             f"tags={','.join(item.tags)} ringside={outcomes['ringside']} "
                             f"nginx={outcomes['nginx']} node={outcomes['node']}\n"
                             f"{item.data!r}\n\n")
    elapsed = time.monotonic() - started

    result.figure("seed", seed)
    result.figure("inputs", count)
    result.figure("per_s", round(count / elapsed))
    result.figure("accepted_ringside", accepted["ringside"])
    result.figure("accepted_nginx", accepted["nginx"])
    result.figure("accepted_node", accepted["node"])
    result.figure("vs_nginx", per_peer["nginx"])
    result.figure("vs_node", per_peer["node"])
    result.figure("lenient", counts["lenient"])
    result.figure("hang", counts["hang"])
    result.figure("documented", sum(documented.values()))
    result.figure("unexplained", len(unexplained))

    result.note(f"peers: {peers.versions()}; nginx proxies to itself to read bodies")
    for name, n in sorted(documented.items(), key=lambda kv: -kv[1]):
        difference = next(d for d in DIFFERENCES if d.name == name)
        result.note(f"documented {name} ({difference.clause}): {n}, e.g. "
                    f"{examples[name].data[:120]!r}")
    report_path = os.path.join(ctx.scratch, "disagreements.txt")
    with open(report_path, "w") as f:
        f.writelines(lines)
    for kind, peer, item, outcomes in unexplained[:5]:
        result.note(f"{kind} vs {peer}: ringside={outcomes['ringside']} "
                    f"nginx={outcomes['nginx']} node={outcomes['node']} "
                    f"tags={','.join(item.tags)} {item.data[:160]!r}")
    result.expect(not unexplained,
                  f"{len(unexplained)} disagreements no documented difference explains "
                  f"(all in {report_path}): each is a ringside defect to fix or a difference "
                  f"to justify with its RFC clause")
    result.expect(not connect_errors,
                  f"{len(connect_errors)} connections failed: {connect_errors[:3]}")
    for name, child in (("ringside", served), ("nginx", nginx_child), ("node", node_child)):
        result.expect(child.alive(), f"{name} died during the attack")
