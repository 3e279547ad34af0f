#!/usr/bin/env python3
"""Runs every command of docs/TUTORIAL.md and checks the output it shows
(the `tutorial` test of `make test`), so that the tutorial cannot rot.

Commands: each line of a ```sh block (a trailing backslash continues it;
blank lines and `#` comments are skipped), run in order with bash, with
pipefail, from a scratch folder that looks like the repository root: every
top-level entry of the source tree is linked in, and `build` is the build
folder given, so `build/ntp` is the binary under test and what the commands
write stays out of the tree. OMP_NUM_THREADS=1 (results do not depend on
it; the machine may be shared).

Output: a ```text block right after a ```sh block (only blank lines between)
is what that block prints, stdout and stderr together, in order. Lines are
compared with trailing blanks ignored; `...` inside a line matches any text
(timings), and a line that is only `...` matches any number of lines. A
```text block anywhere else is an error, so that no shown output goes
unchecked.

--any-numbers: a decimal number shown matches any decimal number printed,
for builds whose floating point may round otherwise (the sanitizer builds,
at other optimisation levels and with another compiler); the text around
the numbers is still checked.

usage: tests/docs/run_tutorial.py docs/TUTORIAL.md BUILD_DIR [--any-numbers]
Exits 1 naming, by line of the tutorial, each command that failed or printed
something else than the tutorial shows.
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^```(\S*)\s*$")
TIMEOUT_SECONDS = 120


class Block:
    def __init__(self, lang, first_line):
        self.lang = lang
        self.first_line = first_line  # 1-based line of the opening fence
        self.lines = []
        self.last_line = first_line   # line of the closing fence


def read_blocks(path):
    """The fenced blocks of a Markdown file, and the line numbers between them."""
    blocks, current = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            fence = FENCE.match(line)
            if current is None and fence:
                current = Block(fence.group(1), number)
            elif current is not None and line.strip() == "```":
                current.last_line = number
                blocks.append(current)
                current = None
            elif current is not None:
                current.lines.append((number, line))
    if current is not None:
        sys.exit(f"{path}:{current.first_line}: a ``` block is never closed")
    return blocks


def commands_of(block):
    """(line, command) for each command of a sh block; backslashes join lines."""
    commands, pending, start = [], "", None
    for number, line in block.lines:
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        start = start or number
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        commands.append((start, pending + line.strip()))
        pending, start = "", None
    return commands


def steps(path):
    """The sh blocks in order, each with its commands and the text block
    that shows its output (None if it shows none)."""
    blocks = read_blocks(path)
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    out = []
    for i, block in enumerate(blocks):
        if block.lang == "sh":
            out.append([commands_of(block), None])
        elif block.lang == "text":
            previous = blocks[i - 1] if i > 0 else None
            between = text[previous.last_line:block.first_line - 1] if previous else []
            if previous is None or previous.lang != "sh" or any(line.strip() for line in between):
                sys.exit(f"{path}:{block.first_line}: a ```text block must follow a ```sh block directly "
                         "(it shows that block's output, which is checked)")
            out[-1][1] = block
    return out


def scratch_folder(source, build, folder):
    """Links every top-level entry of the source tree into `folder`, and
    `build` to the build folder."""
    for name in sorted(os.listdir(source)):
        if name.startswith(".") or name == "build":
            continue
        os.symlink(os.path.join(source, name), os.path.join(folder, name))
    os.symlink(os.path.abspath(build), os.path.join(folder, "build"))


NUMBER = re.compile(r"(?<![\w.])-?[0-9]+\.[0-9]+(?![\w.])")


def expected_pattern(block, any_numbers=False):
    """A regular expression for the output a text block shows; with
    `any_numbers`, any decimal number matches each one shown."""
    parts = []
    for _, line in block.lines:
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        pieces = NUMBER.split(line) if any_numbers else [line]
        escaped = [re.escape(p).replace(re.escape("..."), r"[^\n]*") for p in pieces]
        parts.append(r"-?[0-9]+\.[0-9]+".join(escaped) + r"\n")
    return "".join(parts)


def normalise(output):
    lines = [line.rstrip() for line in output.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


def run(command, folder, env):
    """(exit code, output) of one command."""
    try:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=folder, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as e:
        return f"timed out after {TIMEOUT_SECONDS} s", (e.output or b"").decode("utf-8", "replace")
    return done.returncode, done.stdout.decode("utf-8", "replace")


def check_output(path, commands, block, output, any_numbers):
    """A message if `output` is not what `block` shows, else None."""
    actual = normalise(output)
    if re.fullmatch(expected_pattern(block, any_numbers), actual):
        return None
    shown = [line.rstrip() for _, line in block.lines]
    diff = difflib.unified_diff(shown, actual.rstrip("\n").split("\n"), "the tutorial shows", "the commands printed",
                                lineterm="")
    first = commands[0][0]
    return (f"{path}:{first}: the output of `{commands[-1][1]}` differs from the text block at line "
            f"{block.first_line} (`...` matches any text):\n" + "\n".join(diff))


def main():
    args = sys.argv[1:]
    any_numbers = "--any-numbers" in args
    args = [a for a in args if a != "--any-numbers"]
    if len(args) != 2:
        sys.exit(__doc__)
    path, build = args
    source = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    plan = steps(path)
    if not plan or not any(block for _, block in plan):
        sys.exit(f"{path}: found no ```sh block, or none with its output shown: nothing would be checked")
    env = dict(os.environ, OMP_NUM_THREADS="1", LC_ALL="C")
    failures, ran, started = [], 0, time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ntp-tutorial-") as folder:
        scratch_folder(source, build, folder)
        for commands, block in plan:
            output = ""
            for line, command in commands:
                began = time.monotonic()
                code, printed = run(command, folder, env)
                ran += 1
                output += printed
                print(f"{path}:{line}: {command}  ({time.monotonic() - began:.1f} s)")
                if code != 0:
                    sys.exit(f"FAILED {path}:{line}: `{command}` exited with {code}; it printed:\n{printed}")
            if block is not None:
                message = check_output(path, commands, block, output, any_numbers)
                if message:
                    failures.append(message)
    for message in failures:
        print(f"FAILED {message}\n")
    checked = sum(1 for _, block in plan if block)
    print(f"{ran} commands run, {checked} outputs checked, {len(failures)} differ "
          f"({time.monotonic() - started:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
