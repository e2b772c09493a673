#!/usr/bin/env python3
"""Checks the relative links of the project's Markdown files (no dependencies).

Files checked: README.md, ARCHITECTURE.md (if present), CHANGELOG.md,
benches/README.md and every .md under docs/src. For each Markdown link or
image whose target is relative (not http:, https:, mailto:):
  - the target file or folder must exist, relative to the linking file;
  - a #anchor must match a heading of the target file (or of the linking file
    for a bare #anchor), with mdBook's and GitHub's id rules: lowercase;
    characters other than alphanumerics, spaces, '-' and '_' removed; spaces
    turned into '-'; a repeated heading gets -1, -2, ...
It also checks that every chapter listed in docs/src/SUMMARY.md exists and
that every .md in docs/src is listed there.

Prints each problem as FILE:LINE: target (reason) and exits 1 if any;
otherwise prints "N links checked, 0 broken".

Usage: python3 .ci/check_links.py [REPO_ROOT]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))

# [text](target) or ![alt](target "title"); also [text]: target reference definitions.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def files_to_check():
    out = []
    for rel in ("README.md", "ARCHITECTURE.md", "CHANGELOG.md", os.path.join("benches", "README.md")):
        p = os.path.join(ROOT, rel)
        if os.path.isfile(p):
            out.append(p)
        elif rel in ("README.md", "CHANGELOG.md", os.path.join("benches", "README.md")):
            print(f"{rel}:0: {rel} (file missing)")
            out.append(None)
    src = os.path.join(ROOT, "docs", "src")
    for d, _, names in os.walk(src):
        for n in sorted(names):
            if n.endswith(".md"):
                out.append(os.path.join(d, n))
    return out


def strip_code_spans(line):
    return re.sub(r"(`+)(?:(?!\1).)*?\1", "", line)


def lines_outside_fences(path):
    """Yields (line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif line.strip().startswith(fence):
                    fence = None
                continue
            if fence is None:
                yield no, line.rstrip("\n")


def slug(text):
    # Inline Markdown that does not reach the id: links keep their text, code
    # ticks, emphasis marks and escapes are dropped.
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    # HTML tags are dropped outside code spans; a code span keeps its text.
    parts = re.split(r"(`+[^`]*`+)", text)
    text = "".join(p.strip("`") if p.startswith("`") else re.sub(r"<[^>]+>", "", p) for p in parts)
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        ids, seen = set(), {}
        for _, line in lines_outside_fences(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            ids.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
        # explicit <a id="..."> / <a name="..."> anchors
        with open(path, encoding="utf-8") as f:
            for m in re.finditer(r"<a\s+(?:id|name)=\"([^\"]+)\"", f.read()):
                ids.add(m.group(1))
        _anchor_cache[path] = ids
    return _anchor_cache[path]


def rel(path):
    return os.path.relpath(path, ROOT)


def check_file(path, problems):
    count = 0
    for no, line in lines_outside_fences(path):
        text = strip_code_spans(line)
        targets = [m.group(1) for m in INLINE.finditer(text)]
        m = REFDEF.match(text)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if EXTERNAL.match(target):
                continue
            count += 1
            file_part, _, anchor = target.partition("#")
            if file_part:
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                if not os.path.exists(dest):
                    problems.append(f"{rel(path)}:{no}: {target} (no such file)")
                    continue
            else:
                dest = path
            if anchor:
                if os.path.isdir(dest) or not dest.endswith(".md"):
                    problems.append(f"{rel(path)}:{no}: {target} (anchor on a file that is not Markdown)")
                elif anchor not in anchors(dest):
                    problems.append(f"{rel(path)}:{no}: {target} (no heading with id '{anchor}' in {rel(dest)})")
    return count


def check_summary(problems):
    src = os.path.join(ROOT, "docs", "src")
    summary = os.path.join(src, "SUMMARY.md")
    if not os.path.isfile(summary):
        if os.path.isdir(src):
            problems.append("docs/src/SUMMARY.md:0: SUMMARY.md (file missing)")
        return 0
    listed = set()
    count = 0
    for no, line in lines_outside_fences(summary):
        for m in INLINE.finditer(strip_code_spans(line)):
            target = m.group(1).partition("#")[0]
            if not target or EXTERNAL.match(target):
                continue
            count += 1
            dest = os.path.normpath(os.path.join(src, target))
            listed.add(dest)
            if not os.path.isfile(dest):
                problems.append(f"docs/src/SUMMARY.md:{no}: {target} (chapter missing)")
    for d, _, names in os.walk(src):
        for n in sorted(names):
            p = os.path.normpath(os.path.join(d, n))
            if n.endswith(".md") and n != "SUMMARY.md" and p not in listed:
                problems.append(f"{rel(p)}:0: {rel(p)} (not listed in docs/src/SUMMARY.md)")
    return count


def main():
    problems = []
    count = 0
    for path in files_to_check():
        if path is None:
            problems.append("missing file")
            continue
        count += check_file(path, problems)
    count += check_summary(problems)
    # One line per broken target (a missing chapter is also a broken link).
    seen, unique = set(), []
    for p in problems:
        key = p.rsplit(" (", 1)[0]
        if key not in seen:
            seen.add(key)
            unique.append(p)
    problems = unique
    for p in problems:
        if p != "missing file":
            print(p)
    if problems:
        print(f"{count} links checked, {len(problems)} broken")
        return 1
    print(f"{count} links checked, 0 broken")
    return 0


if __name__ == "__main__":
    sys.exit(main())
