#!/usr/bin/env python3
"""Checks the shape of the source tree (run by `make test`):

1. Includes point one way. Layers, lowest first: autodiff and ann; then the
   rooms of ntp/ in this order; then the API at the top of ntp/. A file may
   include its own room and any room below it, never one above.
2. The public header, ntp/ntp.h, pulls in no tape and no fact index, however
   deep its includes go, and CMake installs exactly the headers it pulls in.
3. No function in ntp/, tools/cli/ or python/ is longer than 60 lines, so that each
   can be read whole.

usage: tools/check_layout.py [SOURCE_DIR]     (exits 1 and names each breach)
"""
import os
import re
import sys

ROOMS = ["kb", "mine", "model", "index", "prover", "eval", "train"]  # lowest first
MAX_FUNCTION_LINES = 60
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer(path):
    """A rank for the file's place in the tree; None outside the library."""
    parts = path.split("/")
    if parts[0] in ("autodiff", "ann"):
        return 0
    if parts[0] != "ntp":
        return None
    if len(parts) == 2:
        return len(ROOMS) + 1  # the API, ntp/*.h and ntp/*.cpp
    return 1 + ROOMS.index(parts[1]) if parts[1] in ROOMS else None


def sources(root, top):
    for folder, _, files in os.walk(os.path.join(root, top)):
        for name in sorted(files):
            if name.endswith((".h", ".cpp")):
                yield os.path.relpath(os.path.join(folder, name), root)


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return INCLUDE.findall(f.read())


def check_directions(root):
    breaches = []
    for top in ("autodiff", "ann", "ntp"):
        for path in sources(root, top):
            here = layer(path)
            if here is None:
                breaches.append(f"{path}: not in a room ({', '.join(ROOMS)})")
                continue
            for inc in includes(root, path):
                there = layer(inc)
                if there is not None and there > here:
                    breaches.append(f"{path}: includes {inc}, which is above it")
                elif top != "ntp" and inc.startswith("ntp/"):
                    breaches.append(f"{path}: includes {inc}, but {top}/ stands below ntp/")
    return breaches


def installed_headers(root):
    """The NTP_PUBLIC_HEADERS list of CMakeLists.txt."""
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
        listed = re.search(r"set\(NTP_PUBLIC_HEADERS([^)]*)\)", f.read())
    return set(listed.group(1).split()) if listed else set()


def check_public_header(root):
    seen, todo, breaches = set(), ["ntp/ntp.h"], []
    while todo:
        path = todo.pop()
        if path in seen or not os.path.exists(os.path.join(root, path)):
            continue
        seen.add(path)
        for inc in includes(root, path):
            if inc.startswith("autodiff/") or inc.startswith("ann/") or inc.startswith("ntp/index/"):
                breaches.append(f"ntp/ntp.h: pulls in {inc} (through {path})")
            todo.append(inc)
    installed = installed_headers(root)
    for path in sorted(seen - installed):
        breaches.append(f"CMakeLists.txt: NTP_PUBLIC_HEADERS lacks {path}, which ntp/ntp.h includes")
    for path in sorted(installed - seen):
        breaches.append(f"CMakeLists.txt: NTP_PUBLIC_HEADERS installs {path}, which is not part of the API")
    return breaches


def strip_comments_and_strings(text):
    """The text with comments and literals blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('R"', i):
            delim = re.match(r'R"([^(]*)\(', text[i:]).group(1)
            j = text.find(")" + delim + '"', i) + len(delim) + 2
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def function_lengths(path):
    """(lines, first line, name) of each function body: a brace block opened
    outside any function, right after a parameter list."""
    text = strip_comments_and_strings(open(path, encoding="utf-8").read())
    stack, found = [], []
    for m in re.finditer(r"[{}]", text):
        line = text.count("\n", 0, m.start()) + 1
        if m.group() == "}":
            if stack:
                kind, first, name = stack.pop()
                if kind == "function":
                    found.append((line - first + 1, first, name))
            continue
        head = re.split(r"[;{}]", text[:m.start()])[-1]
        if any(kind == "function" for kind, _, _ in stack):
            kind = "block"
        elif re.search(r"\b(namespace|class|struct|union|enum)\b[^()]*$", head):
            kind = "scope"
        elif re.search(r"\)[\s\w:&*<>,\->]*$", head) or re.search(r"\)\s*:[\s\S]*\)\s*$", head):
            kind = "function"
        else:
            kind = "block"
        name = re.search(r"([~\w:]+)\s*\(", head)
        stack.append((kind, line, name.group(1) if name else "?"))
    return found


def check_function_lengths(root):
    breaches = []
    for top in ("ntp", "tools/cli", "python"):
        for path in sources(root, top):
            for lines, first, name in function_lengths(os.path.join(root, path)):
                if lines > MAX_FUNCTION_LINES:
                    breaches.append(f"{path}:{first}: {name} is {lines} lines (at most {MAX_FUNCTION_LINES})")
    return breaches


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    checks = [("include direction", check_directions), ("public header", check_public_header),
              ("function length", check_function_lengths)]
    failed = 0
    for title, check in checks:
        breaches = check(root)
        for b in breaches:
            print(f"{title}: {b}")
        failed += bool(breaches)
        print(f"{title}: {'FAILED' if breaches else 'ok'}")
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
