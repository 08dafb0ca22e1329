"""What the bench/e2e report scripts share: reading wrk's output, medians and ratios, the raw
per-run file, plain-text and Markdown tables, and the frame of the Markdown report with its flags.

hello_report.py and loaders_report.py import it; Python puts a script's own folder on the path,
so it needs no installing.
"""
import re
import statistics

NAN = float("nan")


# ---------------------------------------------------------------------------------------------
# wrk output

WRK_TIME_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def find(pattern, text, name, default=None):
    """The groups of the first match of pattern in name's output; default if none, or an error."""
    match = re.search(pattern, text, re.MULTILINE)
    if match:
        return match.groups()
    if default is None:
        raise ValueError(f"{name} output lacks /{pattern}/ (did {name} fail? output:\n{text})")
    return default


def seconds(value, unit):
    """A time as wrk, h2load and the like print it, split into number and unit, in seconds."""
    return float(value) * WRK_TIME_UNITS[unit]


def wrk_seconds(text):
    """One of wrk's times ("1.23ms", "10.00s") in seconds."""
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    if not match:
        raise ValueError(f"unrecognised wrk time '{text}'")
    return seconds(*match.groups())


def wrk_requests(text):
    """(requests completed, seconds measured) from wrk's summary line."""
    count, value, unit = find(r"^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),", text, "wrk")
    return int(count), seconds(value, unit)


def wrk_errors(text):
    """wrk's socket errors (connect, read, write, timeout) and its non-2xx/3xx responses; wrk
    omits those lines when there were none."""
    socket = find(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                  text, "wrk", ("0",) * 4)
    (non2xx,) = find(r"Non-2xx or 3xx responses: (\d+)", text, "wrk", ("0",))
    return (*map(int, socket), int(non2xx))


# ---------------------------------------------------------------------------------------------
# figures

def read_tsv(path):
    """Every line of a raw per-run file as a dict keyed by its header, values still text."""
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f]


def median_and_mad_pct(values):
    """The median, and the median absolute deviation as a share of it in percent."""
    median = statistics.median(values)
    mad = statistics.median(abs(x - median) for x in values)
    return median, 100.0 * mad / median if median else 0.0


def ratio(value, peer):
    return f"{value / peer:.2f}x" if peer else "n/a"


def medians_of(rounds):
    return f"median of {rounds} round{'s' if rounds != 1 else ''}"


# ---------------------------------------------------------------------------------------------
# tables

def is_note_row(cells):
    """A row that only names something and says why it has no figures (every other cell empty):
    it is printed as it stands rather than set in the columns."""
    return not any(cells[2:])


def text_table(header, rows):
    measured = [row for row in rows if not is_note_row(row)]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *measured)]
    widths[0] = max(len(row[0]) for row in [header] + rows)

    def line(cells):
        if is_note_row(cells):
            return f"{cells[0].ljust(widths[0])}  {cells[1]}"
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# the Markdown report

def add_report_arguments(sub):
    """The `report` subcommand with the flags every script's takes; returns it for more."""
    rep = sub.add_parser("report")
    rep.add_argument("raw")
    rep.add_argument("--markdown", required=True)
    rep.add_argument("--command", required=True)
    rep.add_argument("--raw-name", default="")
    rep.add_argument("--meta", action="append", default=[])
    return rep


def write_markdown_head(f, title, args, notes):
    """Title, the command line, the --meta KEY=VALUE lines as a list, then the notes."""
    f.write(f"# {title}\n\n")
    f.write(f"```sh\n{args.command}\n```\n\n")
    for key, value in (m.split("=", 1) for m in args.meta):
        f.write(f"- **{key}**: {value}\n")
    f.write("\n" + notes + "\n")


def write_markdown_foot(f, args):
    f.write(f"\nRaw per-run data: `{args.raw_name or args.raw}`\n")
