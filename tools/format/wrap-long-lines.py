#!/usr/bin/env python3
"""Wraps C# comment lines and string literals that CSharpier leaves longer than the line limit.

CSharpier (tools/format/format.sh) breaks code at 120 columns but never touches comments or the inside of a string
literal. This script does the rest, without changing what the code means:
  - a `//` or `///` line over the limit is split at a space; the overflow joins the next line of the same comment when
    that line continues the prose (not a tag, list item, code block or blank), so paragraphs stay paragraphs;
  - a // comment after code on a line over the limit moves to its own line above it;
  - a line that is only a regular, verbatim or interpolated string literal (then `,` `)` `;` `+` or nothing) is split
    into two literals joined by `+`, at a space outside any `{…}` hole, else after a hole, else anywhere outside an
    escape.
Lines it cannot wrap safely are listed on stderr and left alone. With --check it changes nothing and exits 1 when a
line is over the limit; the content of raw string literals (data: XML, CSS, script) is not checked.
    tools/format/wrap-long-lines.py [--check] [--limit 120] FILE...
"""
import re
import sys

COMMENT = re.compile(r'^(?P<indent>[ \t]*)(?P<mark>///?)(?P<space> ?)(?P<text>.*)$')
LEAD = re.compile(r'^(?P<indent>[ \t]*)(?P<lead>(?:[+?:] |[A-Za-z_][A-Za-z0-9_.]* = |[A-Za-z_][A-Za-z0-9_]*: )?)'
                  r'(?P<rest>(?:\$@|@\$|\$|@)?".*)$')
TAIL = re.compile(r'^[,);+ ]*$')


def split_point(text: str, room: int, doc: bool) -> int:
    """Index of the last space at or before room, not inside an XML tag of a doc comment; -1 if none."""
    depth = 0
    best = -1
    for i, ch in enumerate(text):
        if i > room:
            break
        if ch == '<' and doc:
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
    raw = False
    while i < len(lines):
        line = lines[i]
        toggles = opens_or_closes_raw(line)
        if raw or toggles:  # the content of a raw string literal is data, never wrapped
            raw ^= toggles
            out.append(line)
            i += 1
            continue
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
        cut = split_point(text, room, m.group('mark') == '///')
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
    """For the literal text starts with ("…", $"…", @"…", $@"…"): its end (exclusive), its prefix, and the positions
    it may be cut at, best first (after a space outside holes, then after a hole, then anywhere outside an escape or
    hole); None when it is not such a literal or does not end on this line."""
    m = re.match(r'(\$@|@\$|\$|@)?"', text)
    if not m:
        return None
    prefix = m.group(1) or ''
    interpolated, verbatim = '$' in prefix, '@' in prefix
    i = len(prefix) + 1
    depth = 0
    spaces, holes, anywhere = [], [], []
    while i < len(text):
        ch = text[i]
        if depth == 0:
            if ch == '"':
                if verbatim and text[i + 1:i + 2] == '"':
                    i += 2
                    continue
                return i + 1, prefix, (spaces, holes, anywhere)
            anywhere.append(i)
            if ch == '\\' and not verbatim:
                i += 2
                continue
            if interpolated and ch in '{}' and text[i + 1:i + 2] == ch:
                i += 2
                continue
            if interpolated and ch == '{':
                depth = 1
            elif ch == ' ':
                spaces.append(i + 1)
        else:
            if ch == '"':  # a string inside a hole
                i += 1
                while i < len(text) and text[i] != '"':
                    i += 2 if text[i] == '\\' else 1
            elif ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
                if depth == 0:
                    holes.append(i + 1)
        i += 1
    return None


def trailing_comment(line: str) -> int:
    """Index of a // comment that follows code on the line (outside literals), or -1."""
    if not line.strip() or line.lstrip().startswith('//') or '"""' in line:
        return -1
    i, quote = 0, None
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == '\\' and quote != '@':
                i += 2
                continue
            if ch == '"' and quote in ('"', '@'):
                if quote == '@' and line[i + 1:i + 2] == '"':
                    i += 2
                    continue
                quote = None
            elif ch == "'" and quote == "'":
                quote = None
        elif ch == '@' and line[i + 1:i + 2] == '"':
            quote = '@'
            i += 1
        elif ch in '"\'':
            quote = ch
        elif line.startswith('//', i):
            return i
        elif line.startswith('/*', i):
            return -1
        i += 1
    return -1


def move_trailing_comments(lines, limit):
    out = []
    raw = False
    for line in lines:
        toggles = opens_or_closes_raw(line)
        inside = raw or toggles
        raw ^= toggles
        at = trailing_comment(line) if len(line) > limit and not inside else -1
        if at > 0 and line[:at].strip():
            indent = line[:len(line) - len(line.lstrip())]
            out.append(indent + line[at:].rstrip())
            out.append(line[:at].rstrip())
        else:
            out.append(line)
    return out


def wrap_literals(lines, limit, problems, name):
    out = []
    raw = False
    for n, line in enumerate(lines):
        pending = line
        toggles = opens_or_closes_raw(line)
        if raw or toggles:
            raw ^= toggles
            out.append(line)
            continue
        while len(pending) > limit:
            m = LEAD.match(pending)
            scanned = scan_literal(m.group('rest')) if m else None
            tail = m.group('rest')[scanned[0]:] if scanned else ''
            if not scanned or not TAIL.match(tail):
                if '"' in pending and not pending.lstrip().startswith('//'):
                    problems.append(f'{name}:{n + 1}: long line with a string that is not a lone literal')
                break
            indent, lead, lit = m.group('indent'), m.group('lead'), m.group('rest')[:scanned[0]]
            prefix = scanned[1]
            # After an operator the next half starts with '+' (CSharpier's layout); otherwise this line ends with it.
            trailing = lead.strip() not in ('+', '?', ':')
            room = limit - len(indent) - len(lead) - (3 if trailing else 1)
            usable = [[c for c in kind if len(prefix) + 1 < c <= room and c < len(lit) - 1] for kind in scanned[2]]
            cuts = next((kind for kind in usable if kind), [])
            if not cuts:
                problems.append(f'{name}:{n + 1}: string literal has no place to wrap at')
                break
            cut = cuts[-1]
            # Both halves keep the prefix: an interpolated literal's halves must both be interpolated for the
            # concatenation to still convert to an interpolated string handler (string.Create(provider, $"…")).
            first = lit[:cut] + '"'
            second = prefix + '"' + lit[cut:]
            if trailing:
                out.append(indent + lead + first + ' +')
                pending = indent + ('    ' if lead else '') + second + tail
            else:
                out.append(indent + lead + first)
                pending = indent + '+ ' + second + tail
        out.append(pending)
    return out


def opens_or_closes_raw(line: str) -> bool:
    """Whether a line opens or closes a raw string literal (an odd number of triple quotes): the lines between are
    data, never wrapped nor checked."""
    return line.count('"""') % 2 == 1


def code_lines(lines):
    """(index, line) of every line outside the content of raw string literals (\"\"\"): that content is data (XML,
    CSS, script as a reader or browser gets it), written as it is read, not code."""
    inside = False
    for n, line in enumerate(lines):
        opens_or_closes = opens_or_closes_raw(line)
        if not inside or opens_or_closes:
            yield n, line
        if opens_or_closes:
            inside = not inside


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
                      for n, line in code_lines(open(name, encoding='utf-8').read().split('\n'))
                      if len(line) > limit]
        for entry in long_lines:
            print(entry, file=sys.stderr)
        return 1 if long_lines else 0
    problems = []
    for name in files:
        with open(name, encoding='utf-8') as f:
            original = f.read()
        lines = original.split('\n')
        lines = move_trailing_comments(lines, limit)
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
