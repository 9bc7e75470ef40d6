#!/usr/bin/env python3
"""Wraps C# comment lines and string literals that CSharpier leaves longer than the line limit.

CSharpier (tools/format/format.sh) breaks code at 120 columns but never touches comments or the inside of a string
literal. This script does the rest, without changing what the code means:
  - a `//` or `///` line over the limit is split at a space; the overflow joins the next line of the same comment when
    that line continues the prose (not a tag, list item, code block or blank), so paragraphs stay paragraphs;
  - a line that is only a regular or interpolated string literal (then `,` `)` `;` `+` or nothing) is split into two
    literals joined by `+`, at a space outside any `{…}` hole.
Lines it cannot wrap safely are listed on stderr and left alone. With --check it changes nothing and exits 1 when a
line is over the limit.
    tools/format/wrap-long-lines.py [--check] [--limit 120] FILE...
"""
import re
import sys

COMMENT = re.compile(r'^(?P<indent>[ \t]*)(?P<mark>///?)(?P<space> ?)(?P<text>.*)$')
LEAD = re.compile(r'^(?P<indent>[ \t]*)(?P<lead>(?:[+?:] )?)(?P<rest>\$?".*)$')
TAIL = re.compile(r'^[,);+ ]*$')


def split_point(text: str, room: int) -> int:
    """Index of the last space at or before room, not inside an XML tag; -1 if none."""
    depth = 0
    best = -1
    for i, ch in enumerate(text):
        if i > room:
            break
        if ch == '<':
            depth += 1
        elif ch == '>' and depth > 0:
            depth -= 1
        elif ch == ' ' and depth == 0 and i > 0:
            best = i
    return best


def continues_prose(text: str) -> bool:
    t = text.strip()
    if not t:
        return False
    if t.startswith(('<', '-', '*', '|', '`', '@', '#')) or re.match(r'^\d+[.)] ', t):
        return False
    return True


def wrap_comments(lines, limit, problems, name):
    out = []
    i = 0
    in_code = False
    while i < len(lines):
        line = lines[i]
        m = COMMENT.match(line)
        if not m:
            out.append(line)
            i += 1
            continue
        text = m.group('text')
        if '<code>' in text:
            in_code = True
        if '</code>' in text:
            in_code = False
            out.append(line)
            i += 1
            continue
        if in_code or len(line) <= limit:
            out.append(line)
            i += 1
            continue
        prefix = m.group('indent') + m.group('mark') + (m.group('space') or ' ')
        room = limit - len(prefix)
        cut = split_point(text, room)
        if cut <= 0:
            problems.append(f'{name}:{i + 1}: comment has no space to wrap at')
            out.append(line)
            i += 1
            continue
        head, rest = text[:cut].rstrip(), text[cut + 1:].lstrip()
        out.append(prefix + head)
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        nm = COMMENT.match(nxt) if nxt is not None else None
        if nm and nm.group('indent') == m.group('indent') and nm.group('mark') == m.group('mark') \
                and continues_prose(nm.group('text')) and '<code>' not in nm.group('text'):
            lines[i + 1] = prefix + rest + ' ' + nm.group('text').lstrip()
        else:
            lines.insert(i + 1, prefix + rest)
        i += 1
    return out


def scan_literal(text: str):
    """End index (exclusive) of the regular or interpolated literal text starts with, and its cut points (spaces
    outside holes); None when it is not one this script can split."""
    interpolated = text.startswith('$')
    i = 2 if interpolated else 1
    depth = 0
    spaces = []
    while i < len(text):
        ch = text[i]
        if ch == '\\':
            i += 2
            continue
        if depth == 0:
            if ch == '"':
                return i + 1, spaces
            if interpolated and ch == '{':
                if text[i + 1:i + 2] == '{':
                    i += 2
                    continue
                depth = 1
            elif ch == ' ':
                spaces.append(i)
        else:
            if ch == '"':  # a string inside a hole
                i += 1
                while i < len(text) and text[i] != '"':
                    i += 2 if text[i] == '\\' else 1
            elif ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
        i += 1
    return None


def wrap_literals(lines, limit, problems, name):
    out = []
    for n, line in enumerate(lines):
        pending = line
        while len(pending) > limit:
            m = LEAD.match(pending)
            scanned = scan_literal(m.group('rest')) if m else None
            tail = m.group('rest')[scanned[0]:] if scanned else ''
            if not scanned or not TAIL.match(tail):
                if '"' in pending and not pending.lstrip().startswith('//'):
                    problems.append(f'{name}:{n + 1}: long line with a string that is not a lone literal')
                break
            indent, lead, lit = m.group('indent'), m.group('lead'), m.group('rest')[:scanned[0]]
            trailing = lead == ''
            room = limit - len(indent) - len(lead) - (4 if trailing else 2)
            cuts = [c for c in scanned[1] if 0 < c <= room]
            if not cuts:
                problems.append(f'{name}:{n + 1}: string literal has no space to wrap at')
                break
            cut = cuts[-1]
            dollar = '$' if lit.startswith('$') else ''
            first = lit[:cut + 1] + '"'
            second = dollar + '"' + lit[cut + 1:]
            if dollar and '{' not in first and '}' not in first:
                first = first[1:]
            if dollar and '{' not in second[1:] and '}' not in second[1:]:
                second = second[1:]
            if trailing:
                out.append(indent + first + ' +')
                pending = indent + second + tail
            else:
                out.append(indent + lead + first)
                pending = indent + '+ ' + second + tail
        out.append(pending)
    return out


def main(argv):
    limit = 120
    check = False
    files = []
    it = iter(argv)
    for a in it:
        if a == '--limit':
            limit = int(next(it))
        elif a == '--check':
            check = True
        else:
            files.append(a)
    if check:
        long_lines = [f'{name}:{n + 1}: {len(line)} characters'
                      for name in files
                      for n, line in enumerate(open(name, encoding='utf-8').read().split('\n'))
                      if len(line) > limit]
        for entry in long_lines:
            print(entry, file=sys.stderr)
        return 1 if long_lines else 0
    problems = []
    for name in files:
        with open(name, encoding='utf-8') as f:
            original = f.read()
        lines = original.split('\n')
        lines = wrap_comments(lines, limit, problems, name)
        lines = wrap_literals(lines, limit, problems, name)
        text = '\n'.join(lines)
        if text != original:
            with open(name, 'w', encoding='utf-8', newline='') as f:
                f.write(text)
    for p in problems:
        print(p, file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
