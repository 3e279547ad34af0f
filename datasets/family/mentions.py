#!/usr/bin/env python3
"""The family KB with some relations stated in text, for the held-out check of
textual patterns (tools/reproduce.sh --only family-mentions).

Writes into OUT:
  train.nl          the training facts, every other parentOf, childOf and
                    grandparentOf fact stated through a phrase instead
                    ("[XXX] is the parent of [YYY]"(a, b));
  test_rel.nl       the parentOf and childOf test facts, as relations;
  test_unseen.nl    the same facts through phrases never seen in training,
                    made of words that were ("[XXX] is a parent of [YYY]");
  test_swapped.nl   the same facts through the other relation's unseen
                    phrase: what a model that ignored the words would score.

usage: datasets/family/mentions.py [--kb DIR] --out DIR
"""
import argparse
import os
import re

SEEN = {"parentOf": "[XXX] is the parent of [YYY]", "childOf": "[XXX] is the child of [YYY]",
        "grandparentOf": "[XXX] is a grandparent of [YYY]"}
UNSEEN = {"parentOf": "[XXX] is a parent of [YYY]", "childOf": "[XXX] is a child of [YYY]"}
ATOM = re.compile(r"(\w+)\((\w+),\s*(\w+)\)\.")


def atoms(path):
    with open(path) as f:
        return [m.groups() for m in map(ATOM.match, (line.strip() for line in f)) if m]


def write(path, facts):
    with open(path, "w") as f:
        f.writelines(f"{p}({a}, {b}).\n" for p, a, b in facts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    train = [(f'"{SEEN[p]}"' if p in SEEN and i % 2 == 0 else p, a, b)
             for i, (p, a, b) in enumerate(atoms(os.path.join(args.kb, "train.nl")))]
    write(os.path.join(args.out, "train.nl"), train)
    test = [t for t in atoms(os.path.join(args.kb, "test.nl")) if t[0] in UNSEEN]
    other = {"parentOf": "childOf", "childOf": "parentOf"}
    write(os.path.join(args.out, "test_rel.nl"), test)
    write(os.path.join(args.out, "test_unseen.nl"), [(f'"{UNSEEN[p]}"', a, b) for p, a, b in test])
    write(os.path.join(args.out, "test_swapped.nl"), [(f'"{UNSEEN[other[p]]}"', a, b) for p, a, b in test])


if __name__ == "__main__":
    main()
