"""A grammar-based generator of HTTP/1.1 request byte strings for the differential framing attack
(attack 4): each input is a request built from the grammar of RFC 9112 (request line, field
lines, body framing), with a few of its parts mutated toward the places where parsers are known
to disagree, and often a second, plain request after the first one's body: the probe whose
answer (or absence) shows where a server thought the first request ended.

Every input carries tags naming the mutations it received ("te:value:Chunked"), so a
disagreement can be matched against the table of known, justified differences by what was done
to the bytes, and a report says what each disagreeing input is.

Pure: generate(rng) draws everything from the random.Random it is given, so a seed reproduces a
run exactly.
"""
import dataclasses

PROBE = b"GET /probe HTTP/1.1\r\nHost: x\r\n\r\n"
IN_BODY = b"GET /in-body HTTP/1.1\r\nHost: x\r\n\r\n"


@dataclasses.dataclass
class Input:
    data: bytes
    tags: list

    def has(self, prefix):
        return any(t.startswith(prefix) for t in self.tags)


# -- the request line ---------------------------------------------------------------------------
METHODS = [b"GET", b"POST", b"HEAD", b"PUT", b"DELETE", b"OPTIONS", b"PATCH"]
ODD_METHODS = [
    ("lowercase", b"get"), ("lowercase", b"post"), ("mixedcase", b"Post"),
    ("unregistered", b"FOO"), ("unregistered", b"M-SEARCH"), ("unregistered", b"X_Y"),
    ("tchar", b"G!T"), ("tchar", b"GE~T"), ("empty", b""),
    ("ctl", b"GE\x00T"), ("ctl", b"G\x7fT"), ("ctl", b"\x01GET"), ("obs-text", b"G\xe9T"),
    ("separator", b"G(T"), ("separator", b"GE/T"), ("tls", b"\x16\x03\x01\x00\xa5\x01"),
    ("preface", b"PRI"), ("long", b"A" * 40),
]
TARGETS = [b"/", b"/a", b"/a?b=c", b"/%41b", b"/a/../b"]
ODD_TARGETS = [
    ("absolute", b"http://x/"), ("absolute", b"http://x"), ("absolute", b"HTTP://x/a?b"),
    ("absolute-https", b"https://x/"), ("absolute-other", b"ftp://x/"),
    ("asterisk", b"*"), ("authority", b"x:80"), ("relative", b"a/b"), ("query-only", b"?a"),
    ("fragment", b"/a#f"), ("double-slash", b"//x/a"), ("obs-text", b"/caf\xc3\xa9"),
    ("ctl", b"/a\x01b"), ("ctl", b"/a\x7f"), ("nul", b"/a\x00"), ("tab", b"/a\tb"),
    ("space", b"/a b"), ("backslash", b"/a\\b"), ("quote", b"/a\"b"), ("braces", b"/{a}"),
    ("userinfo", b"http://u@x/"), ("empty-host", b"http:///a"),
]
VERSIONS = [b"HTTP/1.1"] * 6 + [b"HTTP/1.0"]
ODD_VERSIONS = [
    ("1.2", b"HTTP/1.2"), ("1.9", b"HTTP/1.9"), ("2.0", b"HTTP/2.0"), ("0.9", b"HTTP/0.9"),
    ("3.0", b"HTTP/3.0"), ("missing", None), ("lowercase", b"http/1.1"), ("short", b"HTTP/1"),
    ("two-digit", b"HTTP/11.1"), ("two-digit-minor", b"HTTP/1.10"), ("trailing-space",
                                                                      b"HTTP/1.1 "),
    ("letter", b"HTTP/1.x"), ("leading-zero", b"HTTP/01.1"), ("garbage", b"HTXP/1.1"),
]
SEPARATORS = [("double-space", b"  "), ("tab", b"\t"), ("vt", b"\x0b")]

# -- field lines --------------------------------------------------------------------------------
OTHER_HEADERS = [
    (b"User-Agent", b"torture/1"), (b"Accept", b"*/*"), (b"X-A", b"b"),
    (b"Cookie", b"a=b; c=d"), (b"Accept-Encoding", b"gzip, deflate"), (b"X-Empty", b""),
]
HEADER_MUTATIONS = [
    "space-before-colon", "tab-before-colon", "obs-fold", "obs-fold-tab", "leading-space",
    "tab-in-value", "empty-value", "nul-in-value", "ctl-in-value", "del-in-value",
    "obs-text-in-value", "space-in-name", "ctl-in-name", "no-colon", "empty-name",
    "underscore-name", "trailing-whitespace", "no-space-after-colon", "long-value",
    "cr-in-value", "lf-in-value",
]
HOST_MUTATIONS = [
    ("missing", None), ("duplicate", [b"x", b"x"]), ("differing", [b"x", b"y"]),
    ("empty", [b""]), ("port", [b"x:80"]), ("space", [b"x y"]), ("slash", [b"x/y"]),
    ("userinfo", [b"u@x"]), ("ipv6", [b"[::1]"]), ("bad-port", [b"x:8x"]),
    ("underscore", [b"x_y"]), ("trailing-dot", [b"x."]),
]

# -- body framing -------------------------------------------------------------------------------
# (tag, value as a format taking the real length n, or a callable)
CL_VALUES = [
    ("exact", lambda n: b"%d" % n), ("leading-zero", lambda n: b"0%d" % n),
    ("plus", lambda n: b"+%d" % n), ("minus", lambda n: b"-%d" % n),
    ("space-inside", lambda n: b"%d %d" % (n, n)), ("list-same", lambda n: b"%d, %d" % (n, n)),
    ("list-differ", lambda n: b"%d, %d" % (n, n + 1)), ("list-trailing-comma", lambda n: b"%d," % n),
    ("hex", lambda n: b"0x%x" % n), ("decimal-point", lambda n: b"%d.0" % n),
    ("empty", lambda n: b""), ("huge", lambda n: b"99999999999999999999"),
    ("2^64", lambda n: b"18446744073709551616"), ("2^63", lambda n: b"9223372036854775808"),
    ("short", lambda n: b"%d" % max(n - 2, 0)),
    # Four bytes more: the body takes the probe's "GET ", and what is left starts with '/', which
    # no method does (any other cut would leave a method only some servers know, like "T").
    ("long", lambda n: b"%d" % (n + 4)),
    ("zero", lambda n: b"0"), ("letters", lambda n: b"abc"), ("tab-around", lambda n: b"\t%d\t" % n),
    ("nul", lambda n: b"%d\x00" % n), ("many-zeros", lambda n: b"000000000000000000000%d" % n),
]
TE_VALUES = [
    ("chunked", b"chunked"), ("Chunked", b"Chunked"), ("CHUNKED", b"CHUNKED"),
    ("lead-space", b"  chunked"), ("trail-space", b"chunked  "), ("tab", b"\tchunked"),
    ("chunked-chunked", b"chunked, chunked"), ("identity", b"identity"),
    ("identity-chunked", b"identity, chunked"), ("chunked-identity", b"chunked, identity"),
    ("gzip-chunked", b"gzip, chunked"), ("chunked-gzip", b"chunked, gzip"),
    ("xchunked", b"xchunked"), ("chunkedx", b"chunkedx"), ("quoted", b"\"chunked\""),
    ("empty", b""), ("comma-chunked", b", chunked"), ("chunked-comma", b"chunked,"),
    ("semicolon", b"chunked;q=1"), ("vt", b"\x0bchunked"), ("nul", b"chunked\x00"),
    ("obs-text", b"chunked\xff"),
]
TE_NAMES = [
    ("canonical", b"Transfer-Encoding"), ("lower", b"transfer-encoding"),
    ("upper", b"TRANSFER-ENCODING"), ("underscore", b"Transfer_Encoding"),
    ("space-before-colon", b"Transfer-Encoding "), ("prefix", b"XTransfer-Encoding"),
]
CL_NAMES = [
    ("canonical", b"Content-Length"), ("lower", b"content-length"),
    ("underscore", b"Content_Length"), ("space-before-colon", b"Content-Length "),
]
# Mutations of one chunk's size line or data framing (the others touch the last chunk or trailers).
PIECE_MUTATIONS = {
    "upper-hex", "leading-zeros", "extension", "extension-quoted", "extension-empty",
    "ws-after-size", "ws-before-size", "ws-before-extension", "overflow", "negative", "0x",
    "bare-lf-size", "bare-lf-data", "missing-data-crlf", "size-too-big", "size-too-small",
    "bare-cr-size", "extension-ctl", "underscore-size", "plus-size",
}
CHUNK_MUTATIONS = [
    "upper-hex", "leading-zeros", "extension", "extension-quoted", "extension-empty",
    "ws-after-size", "ws-before-size", "ws-before-extension", "overflow", "negative",
    "0x", "bare-lf-size", "bare-lf-data", "missing-data-crlf", "size-too-big",
    "size-too-small", "trailer", "trailer-bad", "last-chunk-00", "missing-final-crlf",
    "bare-lf-final", "bare-cr-size", "no-last-chunk", "extension-ctl", "trailer-content-length",
    "underscore-size", "plus-size",
]


class Builder:
    """One request under construction, with the tags of what was done to it."""

    def __init__(self, rng, mutation):
        self.rng = rng
        self.mutation = mutation  # the one part of the request that gets mutated, or None
        self.tags = []

    def tag(self, text):
        self.tags.append(text)

    def chance(self, p):
        return self.rng.random() < p


def request_line(b):
    rng = b.rng
    method = rng.choice(METHODS)
    if b.mutation == "method":
        kind, method = rng.choice(ODD_METHODS)
        b.tag(f"method:{kind}")
    target = rng.choice(TARGETS)
    if b.mutation == "target":
        kind, target = rng.choice(ODD_TARGETS)
        b.tag(f"target:{kind}")
    version = rng.choice(VERSIONS)
    if version == b"HTTP/1.0":
        b.tag("version:1.0")
    if b.mutation == "version":
        kind, version = rng.choice(ODD_VERSIONS)
        b.tag(f"version:{kind}")
    sep1 = sep2 = b" "
    if b.mutation == "separator":
        kind, sep = rng.choice(SEPARATORS)
        b.tag(f"separator:{kind}")
        if b.chance(0.5):
            sep1 = sep
        else:
            sep2 = sep
    line = method + sep1 + target
    if version is not None:
        line += sep2 + version
    return method, line


def mutate_header(b, name, value):
    """A field line (without its line end) with one mutation."""
    kind = b.rng.choice(HEADER_MUTATIONS)
    b.tag(f"header:{kind}")
    if kind == "space-before-colon":
        return name + b" : " + value
    if kind == "tab-before-colon":
        return name + b"\t: " + value
    if kind == "obs-fold":
        return name + b": " + value + b"\r\n folded"
    if kind == "obs-fold-tab":
        return name + b": " + value + b"\r\n\tfolded"
    if kind == "leading-space":
        return b" " + name + b": " + value
    if kind == "tab-in-value":
        return name + b":\t" + value + b"\tz"
    if kind == "empty-value":
        return name + b":"
    if kind == "nul-in-value":
        return name + b": a\x00" + value
    if kind == "ctl-in-value":
        return name + b": a\x01" + value
    if kind == "del-in-value":
        return name + b": a\x7f" + value
    if kind == "obs-text-in-value":
        return name + b": caf\xc3\xa9" + value
    if kind == "space-in-name":
        return name + b" Z: " + value
    if kind == "ctl-in-name":
        return name + b"\x01: " + value
    if kind == "no-colon":
        return name + b" " + value
    if kind == "empty-name":
        return b": " + value
    if kind == "underscore-name":
        return name.replace(b"-", b"_") + b"_u: " + value
    if kind == "trailing-whitespace":
        return name + b": " + value + b" \t "
    if kind == "no-space-after-colon":
        return name + b":" + value
    if kind == "long-value":
        return name + b": " + b"v" * 4000
    if kind == "cr-in-value":
        return name + b": a\rb"
    return name + b": a\nb"  # lf-in-value


def framing(b, body):
    """The framing field lines for a body of `body` bytes, and the body's bytes on the wire."""
    rng = b.rng
    # Two Content-Length or two Transfer-Encoding fields are a mutation of the value in itself.
    kinds, weights = ["none", "cl", "te", "cl+te", "te+cl", "cl-cl", "te-te"], [10, 30, 30, 6, 6, 0, 0]
    if b.mutation == "cl-value":
        weights = [0, 30, 0, 6, 6, 12, 0]
    elif b.mutation == "cl-name":
        weights = [0, 30, 0, 6, 6, 0, 0]
    elif b.mutation == "te-value":
        weights = [0, 0, 30, 0, 0, 0, 10]
    elif b.mutation in ("te-name", "chunk"):
        weights = [0, 0, 30, 0, 0, 0, 0]
    kind = rng.choices(kinds, weights=weights)[0]
    b.tag(f"framing:{kind}")
    lines = []
    wire = b""
    if kind == "none":
        if body and b.chance(0.3):
            wire = body  # bytes with no framing: they are the next request's (smuggling)
            b.tag("body:unframed")
        return lines, wire
    if kind in ("cl", "cl+te", "te+cl", "cl-cl"):
        name = b"Content-Length"
        if b.mutation == "cl-name":
            nkind, name = rng.choice(CL_NAMES)
            b.tag(f"cl:name:{nkind}")
        vkind, value = ("exact", b"%d" % len(body))
        if b.mutation == "cl-value" and kind != "cl-cl":
            vkind, make = rng.choice(CL_VALUES)
            value = make(len(body))
        b.tag(f"cl:value:{vkind}")
        lines.append(name + b": " + value)
        if kind == "cl-cl":
            second = b"%d" % len(body)
            if b.chance(0.5):
                second = b"%d" % (len(body) + rng.choice([-1, 1, 5]))
                b.tag("cl:duplicate-differ")
            else:
                b.tag("cl:duplicate-same")
            lines.append(b"Content-Length: " + second)
    if kind in ("te", "cl+te", "te+cl", "te-te"):
        name = b"Transfer-Encoding"
        if b.mutation == "te-name":
            nkind, name = rng.choice(TE_NAMES)
            b.tag(f"te:name:{nkind}")
        vkind, value = ("chunked", b"chunked")
        if b.mutation == "te-value" and kind != "te-te":
            vkind, value = rng.choice(TE_VALUES)
        b.tag(f"te:value:{vkind}")
        line = name + b": " + value
        if kind == "te+cl":
            lines.insert(0, line)
        else:
            lines.append(line)
        if kind == "te-te":
            first = rng.choice([b"chunked", b"identity", b"gzip", b"Chunked"])
            b.tag(f"te:duplicate:{first.decode()}")
            lines.insert(0, b"Transfer-Encoding: " + first)
    if kind == "cl":
        return lines, body
    if kind == "cl-cl":
        return lines, body
    # A Content-Length beside Transfer-Encoding can count the chunked bytes or only the data.
    if kind in ("cl+te", "te+cl") and b.chance(0.5):
        encoded = chunked(b, body)
        lines[[i for i, l in enumerate(lines) if l.lower().startswith(b"content")][0]] = (
            b"Content-Length: %d" % len(encoded))
        b.tag("cl:counts-chunked")
        return lines, encoded
    return lines, chunked(b, body)


def chunk_size_line(b, size, mutation):
    hexsize = b"%x" % size
    if mutation == "upper-hex":
        hexsize = hexsize.upper()
    elif mutation == "leading-zeros":
        hexsize = b"000" + hexsize
    elif mutation == "extension":
        hexsize += b";name=value"
    elif mutation == "extension-quoted":
        hexsize += b";name=\"a;b\""
    elif mutation == "extension-empty":
        hexsize += b";"
    elif mutation == "ws-after-size":
        hexsize += b" "
    elif mutation == "ws-before-size":
        hexsize = b" " + hexsize
    elif mutation == "ws-before-extension":
        hexsize += b" ;x=y"
    elif mutation == "overflow":
        hexsize = b"1" + b"0" * 16 + hexsize
    elif mutation == "negative":
        hexsize = b"-" + hexsize
    elif mutation == "0x":
        hexsize = b"0x" + hexsize
    elif mutation == "extension-ctl":
        hexsize += b";a=\x01"
    elif mutation == "underscore-size":
        hexsize = hexsize[:1] + b"_" + hexsize[1:]
    elif mutation == "plus-size":
        hexsize = b"+" + hexsize
    end = b"\r\n"
    if mutation == "bare-lf-size":
        end = b"\n"
    elif mutation == "bare-cr-size":
        end = b"\r"
    return hexsize + end


def chunked(b, body):
    """`body` in chunked coding, perhaps with one framing mutation."""
    rng = b.rng
    mutation = rng.choice(CHUNK_MUTATIONS) if b.mutation == "chunk" else None
    pieces = []
    rest = body
    while rest:
        size = rng.randint(1, max(1, len(rest)))
        pieces.append(rest[:size])
        rest = rest[size:]
    if mutation in PIECE_MUTATIONS and not pieces:
        mutation = None  # nothing to apply it to
    if mutation:
        b.tag(f"chunk:{mutation}")
    # Which chunk gets the mutation of a size line or of data framing.
    target = rng.randrange(len(pieces)) if pieces else -1
    out = b""
    for i, piece in enumerate(pieces):
        m = mutation if i == target else None
        declared = len(piece)
        if m == "size-too-big":
            declared += rng.randint(1, 3)
        elif m == "size-too-small":
            declared = max(0, declared - rng.randint(1, 3))
        out += chunk_size_line(b, declared, m)
        data_end = b"\r\n"
        if m == "bare-lf-data":
            data_end = b"\n"
        elif m == "missing-data-crlf":
            data_end = b""
        out += piece + data_end
    if mutation == "no-last-chunk":
        return out
    last = b"00" if mutation == "last-chunk-00" else b"0"
    out += last + b"\r\n"
    if mutation == "trailer":
        out += b"X-Trailer: v\r\n"
    elif mutation == "trailer-bad":
        out += rng.choice([b"X-Trailer v\r\n", b" folded\r\n", b"X\x00: v\r\n"])
    elif mutation == "trailer-content-length":
        out += b"Content-Length: 5\r\n"
    if mutation == "missing-final-crlf":
        return out
    out += b"\n" if mutation == "bare-lf-final" else b"\r\n"
    return out


def body_bytes(rng):
    # Bodies that are requests themselves: a server that takes them for the next request answers
    # one more time.
    if rng.random() < 0.2:
        return IN_BODY
    n = rng.choice([0, 1, 3, 5, 10, 17, 40])
    # Otherwise bytes no method can start with: a server that takes them for the next request
    # refuses it at its first byte, whatever its method grammar (nginx allows only A-Z, node a
    # fixed list, ringside any token), so its verdict shows where it put the boundary and nothing
    # else.
    return bytes(rng.choice(b"@[]{}()<>=;:?,\"") for _ in range(n))


# The part of the request an input mutates (one at most, so that a disagreement is the effect of
# that one mutation): None leaves the grammar's plain choices (the framing kind, body, probe).
MUTATIONS = [(None, 16), ("method", 6), ("target", 6), ("version", 5), ("separator", 2),
             ("header", 8), ("host", 4), ("cl-value", 12), ("cl-name", 3), ("te-value", 12),
             ("te-name", 3), ("chunk", 14), ("eol", 5), ("leading-crlf", 1)]


def generate(rng):
    """One input: a request (mutated) and, usually, a plain probe request after it."""
    names, weights = zip(*MUTATIONS)
    b = Builder(rng, rng.choices(names, weights=weights)[0])
    method, line = request_line(b)
    headers = []
    host = [b"x"]
    if b.mutation == "host":
        kind, host = rng.choice(HOST_MUTATIONS)
        b.tag(f"host:{kind}")
    for value in host or []:
        headers.append(b"Host: " + value)
    extras = rng.sample(OTHER_HEADERS, rng.randint(0, 2))
    for name, value in extras:
        headers.append(name + b": " + value)
    if b.mutation == "header":
        name, value = rng.choice(OTHER_HEADERS)
        headers.append(mutate_header(b, name, value))
    if b.chance(0.05):
        headers.append(b"Connection: close")
        b.tag("connection:close")
    if b.chance(0.03):
        headers.append(b"Expect: 100-continue")
        b.tag("expect:100-continue")
    body = body_bytes(rng)
    frame_lines, wire_body = framing(b, body)
    # Framing fields go anywhere among the others.
    for fl in frame_lines:
        headers.insert(rng.randint(0, len(headers)), fl)
    lines = [line] + headers
    eol = [b"\r\n"] * (len(lines) + 1)
    if b.mutation == "eol" and b.chance(0.8):
        which = rng.randrange(len(eol))
        kind, eol[which] = rng.choice([("lf", b"\n"), ("cr", b"\r"), ("crcr", b"\r\r\n")])
        b.tag(f"eol:{kind}")
    elif b.mutation == "eol":
        eol = [b"\n"] * len(eol)
        b.tag("eol:all-lf")
    head = b"".join(l + e for l, e in zip(lines, eol)) + eol[-1]
    if b.mutation == "leading-crlf":
        head = b"\r\n" + head
        b.tag("leading-crlf")
    data = head + wire_body
    if b.chance(0.7):
        data += PROBE
        b.tag("probe")
    return Input(data, b.tags)
