#!/usr/bin/env python3
"""Checks that docs/USAGE.md documents every option of every command, as
`ntp <command> --help` lists and groups them, so that no option goes
undocumented.

The commands are those `NTP --help` lists. For each, `NTP <command> --help`
gives its options (`--name`, and a one-letter `-k` with no long name, which
USAGE writes `--k`) and their groups (" Model options:"). USAGE.md must have
a section `## ntp <command>` (up to the next `## ` heading) in which:
  - every option is mentioned as `--name` (not as the start of a longer
    name: `--complex` is not mentioned by `--complex-epochs`);
  - every group has a heading `### <group> options`, and each option of the
    group is mentioned under it (before the next heading of level 2 or 3);
  - every option in the first column of a table (`| `--name ...` |`) is one
    the command has, so that a removed option does not stay documented.

usage: tests/docs/check_usage.py NTP [USAGE.md]
  NTP       the ntp binary (build/ntp)
  USAGE.md  default: docs/USAGE.md beside this script's tests/ folder
Exits 1 naming each command, group and option that is missing or stale.
"""
import os
import re
import subprocess
import sys

OPTION_LONG = re.compile(r"^ {6}--([A-Za-z0-9][\w-]*)")             # "      --dim arg  ..."
OPTION_SHORT = re.compile(r"^  -(\w)(?:, --([A-Za-z0-9][\w-]*))?(?=[\s=]|$)")  # "  -k arg", "  -h, --help"
GROUP = re.compile(r"^ (\S.*) options:\s*$")                         # " Proof search options:"
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
TABLE_OPTION = re.compile(r"^\|\s*`--([A-Za-z0-9][\w-]*)")


def run_help(ntp, *args):
    # cxxopts may wrap a help line inside a multi-byte character: decode leniently.
    result = subprocess.run([ntp, *args, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            encoding="utf-8", errors="replace", timeout=60)
    if result.returncode != 0:
        sys.exit(f"check_usage: `{' '.join([ntp, *args, '--help'])}` exited {result.returncode}: {result.stderr}")
    return result.stdout


def commands(top_help):
    """The command names `ntp --help` lists under "commands:"."""
    names, listing = [], False
    for line in top_help.splitlines():
        if line.strip() == "commands:":
            listing = True
        elif listing and not line.strip():
            break
        elif listing:
            names.append(line.split()[0])
    return names


def options(command_help):
    """[(name, group or None)] of one command, in --help's order."""
    found, group = [], None
    for line in command_help.splitlines():
        g = GROUP.match(line)
        if g:
            group = g.group(1)
            continue
        m = OPTION_LONG.match(line)
        if m:
            found.append((m.group(1), group))
            continue
        m = OPTION_SHORT.match(line)
        if m:
            found.append((m.group(2) or m.group(1), group))
    return found


def headings(text):
    """[(line index, level, title)] outside code fences."""
    out, fenced = [], False
    for i, line in enumerate(text.splitlines()):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            h = HEADING.match(line)
            if h:
                out.append((i, len(h.group(1)), h.group(2).replace("`", "").strip()))
    return out


def block(lines, heads, start, level):
    """The lines from heading `start` to the next heading of `level` or higher."""
    end = len(lines)
    for i, lvl, _ in heads:
        if i > start and lvl <= level:
            end = i
            break
    return "\n".join(lines[start:end])


def mentions(text, name):
    return re.search(r"--" + re.escape(name) + r"(?![\w-])", text) is not None


def check_command(command, command_help, lines, heads):
    problems = []
    section = [i for i, lvl, title in heads if lvl == 2 and title == "ntp " + command]
    if not section:
        return [f"ntp {command}: no section `## ntp {command}` in USAGE.md"]
    start = section[0]
    text = block(lines, heads, start, 2)
    end = start + text.count("\n") + 1
    sub = {title.lower(): i for i, lvl, title in heads if start < i < end and lvl == 3}
    opts = options(command_help)
    for group in dict.fromkeys(g for _, g in opts if g):
        if (group + " options").lower() not in sub:
            problems.append(f"ntp {command}: no heading `### {group} options` for the {group} group")
    for name, group in opts:
        if not mentions(text, name):
            problems.append(f"ntp {command}: --{name} is not documented")
        elif group and (group + " options").lower() in sub:
            if not mentions(block(lines, heads, sub[(group + " options").lower()], 3), name):
                problems.append(f"ntp {command}: --{name} is not documented under `### {group} options`")
    known = {name for name, _ in opts}
    for line in text.splitlines():
        m = TABLE_OPTION.match(line)
        if m and m.group(1) not in known:
            problems.append(f"ntp {command}: --{m.group(1)} is documented but `ntp {command} --help` has no such option")
    return problems


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    ntp = argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    usage = argv[2] if len(argv) == 3 else os.path.normpath(os.path.join(here, "..", "..", "docs", "USAGE.md"))
    with open(usage, encoding="utf-8") as f:
        lines = f.read().splitlines()
    heads = headings("\n".join(lines))
    names = commands(run_help(ntp))
    if not names:
        sys.exit("check_usage: `ntp --help` lists no commands")
    problems, counted = [], 0
    for command in names:
        command_help = run_help(ntp, command)
        counted += len(options(command_help))
        problems += check_command(command, command_help, lines, heads)
    for p in problems:
        print(p)
    if problems:
        print(f"check_usage: {len(problems)} problem(s) in {usage}")
        return 1
    print(f"check_usage: {counted} options of {len(names)} commands ({', '.join(names)}) documented in {usage}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
