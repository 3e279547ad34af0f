#!/usr/bin/env python3
"""Pictures of training, drawn as SVG with the standard library alone.

Training curves: `ntp train --log FILE` writes one JSON object per epoch,
such as {"epoch":3,"loss":1.03,"seconds":0.05,"dev_mrr":0.65,"build":"..."}.
This script draws a grid of small panels against the epoch: the loss, each
dev metric (any "dev_*" member: dev_mrr, dev_accuracy, ...), the index's
recall@1 ("recall_at_1") and the seconds per epoch. Several logs share each
panel, one colour per run; a panel no run has data for is left out.

    tools/plot_log.py RUN.jsonl [RUN2.jsonl ...] [--label NAME ...] [--title TEXT] [--out training.svg]

Rank histogram: `ntp eval --protocol ranking --ranks FILE` writes one line
per ranked test side (a TSV file with a header naming a "rank" column). This
script counts the ranks in the bins 1, 2-3, 4-10, 11-100 and >100 and draws
one bar per bin.

    tools/plot_log.py --ranks RANKS.tsv [--title TEXT] [--out ranks.svg]

Exit status: 0 when the picture is written, 1 when an input cannot be read
or is malformed (the message names the file and the line), 2 for a usage
error. Matplotlib is not needed: the SVG is written here, element by element.
"""
import argparse
import json
import math
import os
import sys
from collections import namedtuple
from xml.sax.saxutils import escape, quoteattr

# --- What is drawn --------------------------------------------------------

# A panel of a training picture: the log member it draws, its title, and how
# its y axis is framed. Loss and seconds start from zero, so that a small
# wiggle does not look like a big change. Metrics are fractions: their axis
# zooms in on their range but does not go past 0 or 1.
Panel = namedtuple("Panel", "key title from_zero fraction")
LOSS_PANEL = Panel("loss", "training loss", from_zero=True, fraction=False)
# Each dev_* member found in the logs gets a panel after the loss, then these.
LATER_PANELS = [Panel("recall_at_1", "recall@1 of the approximate index", from_zero=False, fraction=True),
                Panel("seconds", "seconds per epoch", from_zero=True, fraction=False)]

# Rank bins: (largest rank in the bin, label). A rank is the mean over ties,
# so it can be fractional: a rank of 1.5 counts as "2-3", exactly as HITS@1
# counts only ranks <= 1. The first bins then add up to HITS@1, @3 and @10.
RANK_BINS = [(1, "1"), (3, "2-3"), (10, "4-10"), (100, "11-100"), (math.inf, ">100")]

# Run colours, the Okabe-Ito palette (told apart by colour-blind readers too);
# from the eighth run on, the colours come round again with dashed lines.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]

# Sizes in SVG pixels. A panel holds its title, its axes and its plot area.
PANEL_WIDTH, PANEL_HEIGHT = 330, 210
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 52, 12, 26, 36  # margins inside a panel
COLUMNS = 2
FONT_SIZE = 11
CHAR_WIDTH = 6.2  # about the width of a character at FONT_SIZE, to lay out the legend
MARKER_LIMIT = 25  # series with at most this many points get a dot on each point


class InputError(Exception):
    """A file that cannot be read or is malformed; the message names where."""


# --- Reading the training log ----------------------------------------------

def is_number(value):
    """True for a JSON number (JSON's true and false are bools, not numbers here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def plotted(key):
    """Whether a log member is drawn; others (such as "build") are ignored."""
    return key in ("loss", "seconds", "recall_at_1") or key.startswith("dev_")


def parse_log_line(path, line_number, line):
    """One log line as {member: number} with its epoch; InputError if malformed."""
    where = f"{path}:{line_number}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(record, dict):
        kind = {list: "an array", str: "a string", bool: "true or false"}.get(type(record), "a number or null")
        raise InputError(f"{where}: expected a JSON object {{...}}, one per epoch, got {kind}")
    if "epoch" not in record:
        raise InputError(f'{where}: this object has no "epoch"')
    epoch = record["epoch"]
    if not is_number(epoch) or epoch != int(epoch) or epoch < 0:
        raise InputError(f'{where}: "epoch" is {json.dumps(epoch)}, not a whole number >= 0')
    values = {"epoch": int(epoch)}
    for key, value in record.items():
        if not plotted(key):
            continue
        if not is_number(value) or not math.isfinite(value):
            raise InputError(f'{where}: "{key}" is {json.dumps(value)}, not a finite number')
        values[key] = value
    return values


def read_log(path):
    """A training log as a list of records, one per epoch, in epoch order.

    A resumed run appends to its log, so an epoch can appear twice if the run
    stopped between writing the log and its checkpoint; the later line is the
    one the model continued from, so it replaces the earlier one."""
    by_epoch = {}
    for line_number, line in enumerate(read_lines(path), start=1):
        if line.strip():  # blank lines (a trailing newline) carry nothing
            record = parse_log_line(path, line_number, line)
            by_epoch[record["epoch"]] = record
    if not by_epoch:
        raise InputError(f"{path}: no epochs in this log (is it the file `ntp train --log` wrote?)")
    return [by_epoch[e] for e in sorted(by_epoch)]


def read_lines(path):
    """The lines of a text file; InputError if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read ({e.strerror if isinstance(e, OSError) else e})") from None


# --- Reading the ranks file ------------------------------------------------

def read_ranks(path):
    """The "rank" column of `ntp eval --ranks` output, as numbers >= 1.

    The column is found by its name in the header, so that a new column in
    the file does not break the picture."""
    lines = read_lines(path)
    if not lines:
        raise InputError(f"{path}: empty (expected `ntp eval --ranks` output)")
    header = lines[0].split("\t")
    if "rank" not in header:
        raise InputError(f'{path}:1: expected a header naming a "rank" column, as `ntp eval --ranks` writes')
    column = header.index("rank")
    ranks = []
    for line_number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(f"{path}:{line_number}: expected {len(header)} tab-separated fields, got {len(fields)}")
        try:
            rank = float(fields[column])
        except ValueError:
            rank = math.nan
        if not rank >= 1 or math.isinf(rank):  # "not >=" also catches NaN
            raise InputError(f'{path}:{line_number}: the rank is "{fields[column]}", not a number >= 1')
        ranks.append(rank)
    if not ranks:
        raise InputError(f"{path}: no ranks after the header")
    return ranks


def bin_counts(ranks):
    """How many ranks fall in each of RANK_BINS."""
    counts = [0] * len(RANK_BINS)
    for rank in ranks:
        counts[next(i for i, (top, _) in enumerate(RANK_BINS) if rank <= top)] += 1
    return counts


# --- Axes: round tick values and the mapping from data to pixels -----------

def nice_ticks(lo, hi, count=5, whole=False):
    """About `count` round tick values covering [lo, hi] and their step.

    Steps are 1, 2 or 5 times a power of ten, so that the numbers on an axis
    read easily; `whole` keeps steps of at least 1 (for epochs and counts)."""
    if hi - lo <= 1e-12 * max(1.0, abs(hi)):  # a flat series: give it room
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw * (1 - 1e-9))
    if whole:
        step = max(step, 1)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [i * step for i in range(first, last + 1)], step


def tick_label(value, step):
    """A tick value with as many decimals as its step needs (0.05 -> 2)."""
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{value:.{decimals}f}"


class Axis:
    """Maps data values in [lo, hi] onto pixels from `start` to `end`, and
    keeps the tick values to number the axis with (none for a bar chart's bins)."""

    def __init__(self, lo, hi, start, end, ticks=(), step=1):
        self.lo, self.hi, self.start, self.end = lo, hi, start, end
        self.ticks, self.step = ticks, step

    def __call__(self, value):
        return self.start + (value - self.lo) / (self.hi - self.lo) * (self.end - self.start)


def nice_axis(lo, hi, start, end, whole=False, fraction=False):
    """An axis framing [lo, hi] between round ticks; a fraction's axis stops
    at 0 and 1 (a recall of 1 all along is not framed up to 1.1)."""
    ticks, step = nice_ticks(lo, hi, whole=whole)
    if fraction and 0 <= lo and hi <= 1:
        ticks = [t for t in ticks if -1e-9 <= t <= 1 + 1e-9]
    return Axis(ticks[0], ticks[-1], start, end, ticks, step)


# --- Writing SVG -------------------------------------------------------------

def number(v):
    """A coordinate with one decimal at most, which keeps the files small."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


class Svg:
    """An SVG picture built element by element; text() gives the file.

    Attributes are keyword arguments; as "class" and "stroke-width" cannot be
    Python names, a trailing "_" is dropped and other "_" become "-":
    svg.add("line", class_="axis", stroke_width=1) writes class="axis" stroke-width="1"."""

    def __init__(self, width, height):
        self.width, self.height = width, height
        self.parts = []

    @staticmethod
    def attributes(attrs):
        def value(v):
            return number(v) if isinstance(v, float) else str(v)
        return "".join(f" {k.rstrip('_').replace('_', '-')}={quoteattr(value(v))}" for k, v in attrs.items())

    def add(self, tag, text=None, **attrs):
        """One element, with its text (escaped) if given."""
        if text is None:
            self.parts.append(f"<{tag}{self.attributes(attrs)}/>")
        else:
            self.parts.append(f"<{tag}{self.attributes(attrs)}>{escape(str(text))}</{tag}>")

    def open(self, tag, **attrs):
        self.parts.append(f"<{tag}{self.attributes(attrs)}>")

    def close(self, tag):
        self.parts.append(f"</{tag}>")

    def text(self):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{number(self.width)}" '
                f'height="{number(self.height)}" viewBox="0 0 {number(self.width)} {number(self.height)}" '
                f'font-family="sans-serif" font-size="{FONT_SIZE}">')
        background = '<rect width="100%" height="100%" fill="white"/>'
        return "\n".join([head, background] + self.parts + ["</svg>"]) + "\n"


def draw_axes(svg, x, y, x_title):
    """A plot area's grid lines, frame, tick numbers and the x axis's title."""
    for tick in y.ticks:  # first, so that the frame is drawn over them
        svg.add("line", x1=x.start, y1=y(tick), x2=x.end, y2=y(tick), stroke="#eee")
    svg.add("rect", x=x.start, y=y.end, width=x.end - x.start, height=y.start - y.end,
            fill="none", stroke="#888")
    for tick in x.ticks:
        svg.add("line", x1=x(tick), y1=y.start, x2=x(tick), y2=y.start + 4, stroke="#888")
        svg.add("text", tick_label(tick, x.step), x=x(tick), y=y.start + 15, text_anchor="middle")
    for tick in y.ticks:
        svg.add("line", x1=x.start - 4, y1=y(tick), x2=x.start, y2=y(tick), stroke="#888")
        svg.add("text", tick_label(tick, y.step), x=x.start - 6, y=y(tick) + 4, text_anchor="end")
    svg.add("text", x_title, x=(x.start + x.end) / 2, y=y.start + 29, text_anchor="middle", fill="#444")


def run_style(index):
    """The stroke of the index-th run: its colour, and dashes once colours repeat."""
    style = {"stroke": COLOURS[index % len(COLOURS)]}
    if index >= len(COLOURS):
        style["stroke_dasharray"] = "6 3"
    return style


# --- The training picture ---------------------------------------------------

def panels_for(runs):
    """The panels with data in at least one run, in order."""
    dev_keys = sorted({key for records in runs for r in records for key in r if key.startswith("dev_")})
    dev_panels = [Panel(k, "dev " + k[4:].replace("_", " "), from_zero=False, fraction=True) for k in dev_keys]
    candidates = [LOSS_PANEL] + dev_panels + LATER_PANELS
    return [p for p in candidates if any(p.key in r for records in runs for r in records)]


def series(records, key):
    """The (epoch, value) points of one member in one run; epochs without it are skipped
    (a dev metric measured every N epochs has a point every N epochs)."""
    return [(r["epoch"], r[key]) for r in records if key in r]


def draw_panel(svg, left, top, panel, runs, labels, epochs):
    """One panel at (left, top): its title, axes and one line per run with data."""
    values = [v for records in runs for _, v in series(records, panel.key)]
    lo, hi = min(values), max(values)
    if panel.from_zero:
        lo = min(lo, 0)
    x = nice_axis(epochs[0], epochs[1], left + PLOT_LEFT, left + PANEL_WIDTH - PLOT_RIGHT, whole=True)
    y = nice_axis(lo, hi, top + PANEL_HEIGHT - PLOT_BOTTOM, top + PLOT_TOP, fraction=panel.fraction)
    svg.open("g", class_="panel", id="panel-" + panel.key)
    svg.add("text", panel.title, x=left + PANEL_WIDTH / 2, y=top + 15, text_anchor="middle", font_weight="bold")
    draw_axes(svg, x, y, "epoch")
    for index, (records, label) in enumerate(zip(runs, labels)):
        points = series(records, panel.key)
        if points:
            draw_series(svg, points, x, y, index, label)
    svg.close("g")


def draw_series(svg, points, x, y, index, label):
    """One run's line; a dot on each point too when there are few (one point alone is no line)."""
    style = run_style(index)
    svg.open("polyline", class_="series", data_run=index, fill="none", stroke_width=1.6,
             stroke_linejoin="round", points=" ".join(f"{number(x(e))},{number(y(v))}" for e, v in points), **style)
    svg.add("title", label)  # shown when the pointer rests on the line
    svg.close("polyline")
    if len(points) <= MARKER_LIMIT:
        for e, v in points:
            svg.add("circle", cx=x(e), cy=y(v), r=2.2, fill=style["stroke"])


def legend_rows(labels, width):
    """The legend's entries laid out in rows that fit `width`: lists of (index, x offset)."""
    rows, row, used = [], [], 0.0
    for index, label in enumerate(labels):
        entry = 30 + CHAR_WIDTH * len(label) + 16  # swatch, text, gap
        if row and used + entry > width:
            rows.append(row)
            row, used = [], 0.0
        row.append((index, used))
        used += entry
    return rows + [row]


def draw_legend(svg, labels, top, width):
    """A swatch of each run's line and its label; returns the height used."""
    rows = legend_rows(labels, width - 20)
    svg.open("g", class_="legend")
    for r, row in enumerate(rows):
        y = top + 12 + 18 * r
        for index, offset in row:
            svg.add("line", x1=10 + offset, y1=y - 4, x2=34 + offset, y2=y - 4, stroke_width=2.5, **run_style(index))
            svg.add("text", labels[index], x=40 + offset, y=y)
    svg.close("g")
    return 18 * len(rows) + 6


def training_picture(runs, labels, title):
    """The SVG text of the training picture of `runs` (lists of records)."""
    panels = panels_for(runs)
    columns = min(COLUMNS, len(panels))
    svg = Svg(columns * PANEL_WIDTH, 0)  # its height is known once the legend is laid out
    # One epoch axis for all panels, so that the panels line up.
    epochs = (min(r[0]["epoch"] for r in runs), max(r[-1]["epoch"] for r in runs))
    top = 0
    if title:
        svg.add("text", title, x=svg.width / 2, y=17, text_anchor="middle", font_size=14, font_weight="bold")
        top = 24
    top += draw_legend(svg, labels, top, svg.width)
    for i, panel in enumerate(panels):
        draw_panel(svg, (i % columns) * PANEL_WIDTH, top + (i // columns) * PANEL_HEIGHT, panel, runs, labels, epochs)
    svg.height = top + math.ceil(len(panels) / columns) * PANEL_HEIGHT
    return svg.text()


# --- The rank histogram -----------------------------------------------------

def rank_summary(ranks):
    """MRR and HITS@1/3/10 as `ntp eval` computes them from the same ranks,
    so that the picture can be checked against its printed line."""
    n = len(ranks)
    hits = [sum(r <= k for r in ranks) / n for k in (1, 3, 10)]
    mrr = sum(1 / r for r in ranks) / n
    return f"{n} ranked sides · MRR {mrr:.4f} · HITS@1 {hits[0]:.4f} · HITS@3 {hits[1]:.4f} · HITS@10 {hits[2]:.4f}"


def ranks_picture(ranks, title):
    """The SVG text of the histogram of `ranks`: one bar per bin, its count above it."""
    counts = bin_counts(ranks)
    width, height = 560, 300
    top = 46  # below the title and the summary line
    svg = Svg(width, height)
    svg.add("text", title, x=width / 2, y=17, text_anchor="middle", font_size=14, font_weight="bold")
    svg.add("text", rank_summary(ranks), x=width / 2, y=34, text_anchor="middle", fill="#444")
    x = Axis(0, len(RANK_BINS), 60, width - 20)  # one slot per bin, labelled under its bar
    y = nice_axis(0, max(counts), height - 40, top + 16, whole=True)
    draw_axes(svg, x, y, "rank among the filtered corruptions (ties by mean rank)")
    svg.open("g", class_="bars")
    for i, ((_, label), count) in enumerate(zip(RANK_BINS, counts)):
        left, right = x(i + 0.15), x(i + 0.85)
        svg.add("rect", class_="bar", data_bin=label, data_count=count, x=left, y=y(count),
                width=right - left, height=y(0) - y(count), fill=COLOURS[0])
        svg.add("text", count, x=(left + right) / 2, y=y(count) - 4, text_anchor="middle")
        svg.add("text", label, x=(left + right) / 2, y=y.start + 15, text_anchor="middle")
    svg.close("g")
    return svg.text()


# --- The command line -------------------------------------------------------

def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="plot_log.py",
        description="Draws training curves from `ntp train --log` files, or the rank histogram "
                    "of `ntp eval --ranks`, as an SVG file (standard library only).",
        epilog="examples:\n"
               "  tools/plot_log.py run.jsonl --out training.svg\n"
               "  tools/plot_log.py a.jsonl b.jsonl --label 'k=1' 'k=0' --out both.svg\n"
               "  tools/plot_log.py --ranks ranks.tsv --out ranks.svg\n"
               "exit status: 0 written, 1 unreadable or malformed input, 2 usage error",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="*", metavar="RUN.jsonl", help="training logs, one per run")
    parser.add_argument("--ranks", metavar="RANKS.tsv", help="draw the rank histogram of this file instead")
    parser.add_argument("--label", nargs="+", action="extend", default=[], metavar="NAME",
                        help="a legend label per log, in order (default: the file names)")
    parser.add_argument("--title", help="a title above the picture")
    parser.add_argument("--out", metavar="FILE.svg",
                        help="where to write the SVG, - for standard output "
                             "(default: training.svg, or ranks.svg with --ranks)")
    args = parser.parse_intermixed_args(argv)  # logs may come before or after the options
    # Usage errors exit with status 2, as argparse's own do.
    if args.ranks and args.logs:
        parser.error("give training logs or --ranks, not both")
    if not args.ranks and not args.logs:
        parser.error("nothing to draw: give one or more training logs, or --ranks RANKS.tsv")
    if args.ranks and args.label:
        parser.error("--label names training logs; a rank histogram has no legend")
    if args.label and len(args.label) != len(args.logs):
        parser.error(f"{len(args.label)} labels for {len(args.logs)} logs: give one label per log, or none "
                     "(--label takes every word up to the next option, so put the logs before it)")
    return args


def default_labels(paths):
    """Each log's file name, or its whole path when two runs share a file name."""
    names = [os.path.basename(p) for p in paths]
    return names if len(set(names)) == len(names) else list(paths)


def write_output(path, text):
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise InputError(f"{path}: cannot write ({e.strerror})") from None


def main(argv):
    args = parse_arguments(argv)
    try:
        if args.ranks:
            title = args.title or "ranks of " + os.path.basename(args.ranks)
            text, out = ranks_picture(read_ranks(args.ranks), title), args.out or "ranks.svg"
        else:
            runs = [read_log(path) for path in args.logs]
            labels = args.label or default_labels(args.logs)
            text, out = training_picture(runs, labels, args.title), args.out or "training.svg"
        write_output(out, text)
    except InputError as e:
        print(f"plot_log.py: {e}", file=sys.stderr)
        return 1
    if out != "-":
        print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
