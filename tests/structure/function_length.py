#!/usr/bin/env python3
"""Fails when a C++ function is longer than --max lines (default 120) outside kernels/ and tests/.

Project rule: "No function over 120 lines outside kernels and tests".

Usage:
  function_length.py [--max 120] [--root DIR] [--list-all N]
  function_length.py --self-test

Scans *.cpp, *.cc and *.h under the root (default: the repository root, two folders up from
this script), skipping kernels/, tests/, build*/, hidden folders (.git/, ...), third-party and
generated folders, and generated *.pb.h / *.pb.cc files.

A function is any function body at namespace or class scope: free functions, member functions
defined in the class or out of line, constructors/destructors (with initializer lists),
operator overloads, and lambdas that are not inside another function (for example
`ATC_REGISTER_OP([] { ... }())` or `auto f = [](int x) { ... };` at namespace scope). Lambdas,
local classes and blocks inside a function are part of that function.

Length: counted from the first line of the declaration (the line of its first token: the
`template <...>` line, the return type, or `[` for a lambda) through the closing `}`
inclusive. The reported path:line is that first line. Comments and blank lines inside count.

The tokenizer skips comments, string literals (with escapes and encoding prefixes), raw
strings R"delim(...)delim", char literals, digit separators and preprocessor lines (with
backslash continuations). Of an #if/#ifdef/#ifndef ... #elif/#else ... #endif chain only the
first branch is read (the #else branch for `#if 0`), so that duplicated signatures in
alternative branches do not unbalance the braces.

Not seen: function bodies written inside a #define. Braces left open at the end of a file
(or an unmatched '}') are reported as warnings on stderr.

Exit status: 0 when no function is over the limit, 1 when some are, 2 on a usage error or a
failed self-test.
"""
import argparse
import io
import os
import shutil
import sys
import tempfile

SOURCE_EXTS = ('.cpp', '.cc', '.h')
SKIP_TOP_DIRS = {'kernels', 'tests'}
SKIP_ANY_DIRS = {'third_party', 'third-party', 'thirdparty', '3rdparty', 'external', 'vendor',
                 '_deps', 'generated', 'node_modules', 'out', '__pycache__'}
SKIP_FILE_SUFFIXES = ('.pb.h', '.pb.cc')

# ----------------------------------------------------------------------------------------------
# Tokenizer
# ----------------------------------------------------------------------------------------------

IDENT, NUMBER, STRING, CHAR, PUNCT = 'id', 'num', 'str', 'chr', 'p'
STRING_PREFIXES = {'L', 'u', 'U', 'u8'}
RAW_PREFIXES = {'R', 'LR', 'uR', 'UR', 'u8R'}
MULTI_PUNCT = ('...', '::', '->')


class Tok(object):
    __slots__ = ('kind', 'text', 'line')

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return '%s:%r@%d' % (self.kind, self.text, self.line)


def _is_ident_start(c):
    return c.isalpha() or c == '_' or c == '$' or ord(c) > 127


def _is_ident_char(c):
    return c.isalnum() or c == '_' or c == '$' or ord(c) > 127


class _Scanner(object):
    def __init__(self, text):
        self.s = text
        self.n = len(text)
        self.i = 0
        self.line = 1
        self.at_line_start = True  # only whitespace/comments so far on this line

    def _skip_block_comment(self):
        # at '/*'
        end = self.s.find('*/', self.i + 2)
        end = self.n if end < 0 else end + 2
        self.line += self.s.count('\n', self.i, end)
        self.i = end

    def _skip_line_comment(self):
        # at '//'; a backslash-newline continues the comment
        s, i, n = self.s, self.i, self.n
        while i < n:
            j = s.find('\n', i)
            if j < 0:
                i = n
                break
            k = j - 1
            if k >= 0 and s[k] == '\r':
                k -= 1
            if k >= i and s[k] == '\\':
                self.line += 1
                i = j + 1
                continue
            i = j  # leave the newline for the main loop
            break
        self.i = i

    def _skip_quoted(self, quote):
        # at the opening quote; handles backslash escapes; stops at an unescaped newline
        s, i, n = self.s, self.i + 1, self.n
        while i < n:
            c = s[i]
            if c == '\\':
                if i + 1 < n and s[i + 1] == '\n':
                    self.line += 1
                i += 2
                continue
            if c == quote:
                i += 1
                break
            if c == '\n':  # unterminated literal: do not swallow the rest of the file
                break
            i += 1
        self.i = i

    def _skip_raw_string(self):
        # at the '"' after the R prefix
        s = self.s
        open_paren = s.find('(', self.i + 1)
        if open_paren < 0 or open_paren - self.i - 1 > 16 or '\n' in s[self.i:open_paren]:
            self._skip_quoted('"')  # not a valid raw string; treat as ordinary
            return
        delim = s[self.i + 1:open_paren]
        close = s.find(')' + delim + '"', open_paren + 1)
        end = self.n if close < 0 else close + len(delim) + 2
        self.line += s.count('\n', self.i, end)
        self.i = end

    def _skip_preprocessor(self):
        """At '#' (first token on its line): skips the directive, returns its text (comments,
        strings and continuations handled)."""
        s, n = self.s, self.n
        parts = []
        i = self.i
        while i < n:
            c = s[i]
            if c == '\\' and i + 1 < n and s[i + 1] == '\n':
                self.line += 1
                i += 2
                parts.append(' ')
                continue
            if c == '\\' and s.startswith('\r\n', i + 1):
                self.line += 1
                i += 3
                parts.append(' ')
                continue
            if c == '\n':
                break
            if c == '/' and i + 1 < n and s[i + 1] == '*':
                self.i = i
                self._skip_block_comment()
                i = self.i
                parts.append(' ')
                continue
            if c == '/' and i + 1 < n and s[i + 1] == '/':
                self.i = i
                self._skip_line_comment()
                i = self.i
                continue
            if c == '"' or c == "'":
                self.i = i
                self._skip_quoted(c)
                parts.append(s[i:self.i])
                i = self.i
                continue
            parts.append(c)
            i += 1
        self.i = i
        return ''.join(parts)

    def tokens(self):
        """Yields Tok objects and ('pp', text, line) tuples for preprocessor directives."""
        s, n = self.s, self.n
        while self.i < n:
            c = s[self.i]
            if c == '\n':
                self.line += 1
                self.i += 1
                self.at_line_start = True
                continue
            if c in ' \t\r\f\v':
                self.i += 1
                continue
            if c == '\\' and self.i + 1 < n and s[self.i + 1] in '\r\n':  # stray continuation
                self.i += 1
                continue
            if c == '/' and self.i + 1 < n and s[self.i + 1] == '/':
                self._skip_line_comment()
                continue
            if c == '/' and self.i + 1 < n and s[self.i + 1] == '*':
                self._skip_block_comment()
                continue
            line = self.line
            if c == '#' and self.at_line_start:
                text = self._skip_preprocessor()
                yield ('pp', text, line)
                continue
            self.at_line_start = False
            if _is_ident_start(c):
                j = self.i + 1
                while j < n and _is_ident_char(s[j]):
                    j += 1
                word = s[self.i:j]
                if j < n and s[j] == '"' and word in RAW_PREFIXES:
                    start = self.i
                    self.i = j
                    self._skip_raw_string()
                    yield Tok(STRING, s[start:self.i], line)
                    continue
                if j < n and s[j] in '"\'' and word in STRING_PREFIXES:
                    start = self.i
                    self.i = j
                    self._skip_quoted(s[j])
                    yield Tok(STRING if s[j] == '"' else CHAR, s[start:self.i], line)
                    continue
                self.i = j
                yield Tok(IDENT, word, line)
                continue
            if c.isdigit() or (c == '.' and self.i + 1 < n and s[self.i + 1].isdigit()):
                j = self.i + 1
                while j < n:
                    d = s[j]
                    if _is_ident_char(d) or d == '.':
                        j += 1
                    elif d == "'" and j + 1 < n and _is_ident_char(s[j + 1]):
                        j += 1  # digit separator 1'000'000
                    elif d in '+-' and s[j - 1] in 'eEpP' and not s[self.i:j].lower().startswith('0x') \
                            or d in '+-' and s[j - 1] in 'pP':
                        j += 1
                    else:
                        break
                yield Tok(NUMBER, s[self.i:j], line)
                self.i = j
                continue
            if c == '"':
                start = self.i
                self._skip_quoted('"')
                yield Tok(STRING, s[start:self.i], line)
                continue
            if c == "'":
                start = self.i
                self._skip_quoted("'")
                yield Tok(CHAR, s[start:self.i], line)
                continue
            for p in MULTI_PUNCT:
                if s.startswith(p, self.i):
                    self.i += len(p)
                    yield Tok(PUNCT, p, line)
                    break
            else:
                self.i += 1
                yield Tok(PUNCT, c, line)


def _pp_directive(text):
    body = text[1:].strip()
    word = ''
    k = 0
    while k < len(body) and (body[k].isalnum() or body[k] == '_'):
        k += 1
    word = body[:k]
    return word, body[k:].strip()


def tokenize(text):
    """Returns the list of significant tokens, without preprocessor lines and without the
    tokens of skipped #elif/#else branches."""
    out = []
    # Stack of conditional states: each is [taking_now, some_branch_taken, parent_taking].
    stack = []
    taking = True
    for t in _Scanner(text).tokens():
        if isinstance(t, tuple):
            word, rest = _pp_directive(t[1])
            if word in ('if', 'ifdef', 'ifndef'):
                take_first = not (word == 'if' and rest.split('//')[0].strip() in ('0', 'false'))
                stack.append([taking, take_first])
                taking = taking and take_first
            elif word in ('elif', 'else') and stack:
                parent, taken = stack[-1]
                take = not taken  # first branch not taken (#if 0): take the next one
                if take:
                    stack[-1][1] = True
                taking = parent and take
            elif word == 'endif' and stack:
                taking = stack.pop()[0]
            continue
        if taking:
            out.append(t)
    return out


# ----------------------------------------------------------------------------------------------
# Function finder
# ----------------------------------------------------------------------------------------------

CONTROL = {'if', 'for', 'while', 'switch', 'catch', 'return', 'sizeof', 'alignof', 'decltype',
           'alignas', '__attribute__', '__declspec', 'noexcept', 'throw', 'static_assert',
           'requires', 'typeof', '__typeof__', 'do', 'else', 'try', 'new', 'delete', 'case',
           'typeid', '_Pragma', '__pragma', 'asm', '__asm__'}
DECL_SPECIFIERS_AFTER_PARAMS = {'const', 'volatile', 'override', 'final', 'noexcept', 'mutable',
                                'constexpr', 'consteval', 'try', 'throw', '&', '&&',
                                '__attribute__', 'requires', 'transaction_safe'}
CLASS_KEYS = {'class', 'struct', 'union'}
TYPE_KEYWORDS = {'void', 'bool', 'char', 'short', 'int', 'long', 'float', 'double', 'signed',
                 'unsigned', 'auto', 'const', 'static', 'inline', 'extern', 'virtual', 'explicit',
                 'constexpr', 'friend', 'typename', 'volatile', 'wchar_t', 'char16_t', 'char32_t'}
ACCESS = {'public', 'private', 'protected', 'signals', 'slots', 'Q_SIGNALS', 'Q_SLOTS'}
GROUP = 'grp'  # placeholder token for a closed brace group inside a declaration head

OPEN = {'(': ')', '[': ']'}
CLOSE = {')': '(', ']': '['}


class Function(object):
    __slots__ = ('path', 'name', 'start', 'brace', 'end')

    def __init__(self, path, name, start, brace, end):
        self.path, self.name, self.start, self.brace, self.end = path, name, start, brace, end

    @property
    def length(self):
        return self.end - self.start + 1

    def __repr__(self):
        return 'Function(%r, %d..%d)' % (self.name, self.start, self.end)


def _match_forward(toks, i):
    """toks[i] is '(' or '['; returns the index of the matching closer (or len(toks))."""
    depth = 0
    for k in range(i, len(toks)):
        t = toks[k].text if toks[k].kind == PUNCT else None
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            depth -= 1
            if depth == 0:
                return k
    return len(toks)


def _match_angle_back(toks, i):
    """toks[i] is '>'; returns the index of the matching '<' or -1."""
    depth = 0
    paren = 0
    for k in range(i, -1, -1):
        t = toks[k]
        if t.kind != PUNCT:
            continue
        if t.text in (')', ']'):
            paren += 1
        elif t.text in ('(', '['):
            paren -= 1
            if paren < 0:
                return -1
        elif paren == 0 and t.text == '>':
            depth += 1
        elif paren == 0 and t.text == '<':
            depth -= 1
            if depth == 0:
                return k
        elif paren == 0 and t.text in (';', '{', '}'):
            return -1
    return -1


def _is_p(t, text):
    return t is not None and t.kind == PUNCT and t.text == text


def _qualified_name(toks, k):
    """toks[k] is the last token of a declarator name (identifier or '>' of a template-id);
    returns (name, first_index)."""
    parts = []
    while k >= 0:
        t = toks[k]
        if _is_p(t, '>'):
            j = _match_angle_back(toks, k)
            if j <= 0 or toks[j - 1].kind != IDENT:
                break
            parts.append(''.join(x.text for x in toks[j:k + 1]))
            k = j - 1
            continue
        if t.kind != IDENT:
            break
        name = t.text
        if k >= 1 and _is_p(toks[k - 1], '~'):
            name = '~' + name
            k -= 1
        parts.append(name)
        if k >= 1 and _is_p(toks[k - 1], '::'):
            parts.append('::')
            k -= 2
            if k >= 0 and toks[k].kind == IDENT and toks[k].text in TYPE_KEYWORDS:
                break
            continue
        k -= 1
        break
    parts.reverse()
    return ''.join(parts), k + 1


def _skip_specifiers(toks, k):
    """Skips cv/ref/noexcept/override/... and attributes after a parameter list; returns the
    index of the first token that is none of those."""
    n = len(toks)
    while k < n:
        t = toks[k]
        if t.kind == IDENT and t.text in DECL_SPECIFIERS_AFTER_PARAMS:
            if k + 1 < n and _is_p(toks[k + 1], '('):  # noexcept(...), throw(), __attribute__((..))
                k = _match_forward(toks, k + 1) + 1
            else:
                k += 1
            continue
        if t.kind == PUNCT and t.text in ('&', '&&'):
            k += 1
            continue
        if _is_p(t, '[') and k + 1 < n and _is_p(toks[k + 1], '['):  # [[attr]]
            k = _match_forward(toks, k) + 1
            continue
        break
    return k


def analyse_head(toks):
    """Decides whether a declaration head (the tokens before a '{' at namespace/class scope)
    is a function declarator. Returns (kind, info):
      ('function', (name, start_index)) -- the '{' opens the function body; start_index is
                                           the first token of its declaration
      ('member-init', None)            -- the '{' is a brace initialiser in a ctor init list
      (None, None)                     -- not a function
    """
    n = len(toks)
    if n == 0:
        return None, None
    paren = angle = 0
    candidates = []  # (name, name_index, after_params_index)
    k = 0
    while k < n:
        t = toks[k]
        if t.kind == IDENT and t.text == 'operator' and paren == 0 and angle == 0:
            # operator name: operator() / operator[] / operator== / operator bool / ...
            j = k + 1
            if j + 1 < n and _is_p(toks[j], '(') and _is_p(toks[j + 1], ')'):
                j += 2
            elif j + 1 < n and _is_p(toks[j], '[') and _is_p(toks[j + 1], ']'):
                j += 2
            else:
                while j < n and not _is_p(toks[j], '('):
                    j += 1
            if j < n and _is_p(toks[j], '('):
                qual, first = _qualified_name(toks, k - 2) if k >= 2 and _is_p(toks[k - 1], '::') \
                    else ('', k)
                name = (qual + '::' if qual else '') + 'operator' + \
                    ''.join((' ' + x.text) if x.kind == IDENT else x.text for x in toks[k + 1:j])
                close = _match_forward(toks, j)
                candidates.append((name, first, close + 1))
                k = close + 1
                continue
            k = j
            continue
        if t.kind == PUNCT:
            if t.text in ('(', '['):
                if t.text == '(' and paren == 0 and angle == 0 and k > 0:
                    prev = toks[k - 1]
                    if (prev.kind == IDENT and prev.text not in CONTROL) or \
                            (_is_p(prev, '>') and _match_angle_back(toks, k - 1) > 0):
                        name, first = _qualified_name(toks, k - 1)
                        close = _match_forward(toks, k)
                        candidates.append((name, first, close + 1))
                        k = close + 1
                        continue
                paren += 1
            elif t.text in (')', ']'):
                paren = max(0, paren - 1)
            elif t.text == '<' and paren == 0 and k > 0 and \
                    (toks[k - 1].kind == IDENT or _is_p(toks[k - 1], '>')):
                angle += 1
            elif t.text == '>' and paren == 0 and angle > 0:
                angle -= 1
            elif t.text in ('=', ';') and paren == 0 and angle == 0:
                return None, None  # initialiser / alias: not a function definition
        k += 1

    def start_of(ci):
        # A macro invocation without ';' before the declaration, such as
        # `ATC_DESC_GETTERS(input, true)` on its own line, is not part of it.
        start = 0
        for name, _, after in candidates[:ci]:
            if name and name == name.upper() and after < n and toks[after - 1].line < toks[after].line:
                start = after
        return start

    for ci, (name, first, after) in enumerate(candidates):
        k = _skip_specifiers(toks, after)
        if k >= n:
            return 'function', (name, start_of(ci))
        t = toks[k]
        if _is_p(t, '->'):
            return 'function', (name, start_of(ci))  # trailing return type up to the '{'
        if _is_p(t, ':'):
            last = toks[-1]
            if last.kind == GROUP or _is_p(last, ')') or _is_p(last, '...'):
                return 'function', (name, start_of(ci))
            return 'member-init', None
    # Unknown trailing macro(s) after the parameter list, e.g. `void f() ATC_NOEXCEPT {`.
    for ci, (name, first, after) in enumerate(candidates):
        k = _skip_specifiers(toks, after)
        rest = toks[k:]
        if rest and all(x.kind == IDENT and x.text not in CONTROL and x.text not in CLASS_KEYS
                        for x in rest) and rest[0].text.isupper():
            return 'function', (name, start_of(ci))
    # A declarator in parentheses, such as `void (*pick(int))(int) {`: the name is the
    # innermost identifier that is followed by '('.
    if _is_p(toks[-1], ')') and toks[0].text != 'catch' and not _has_top_level_eq(toks):
        best, best_depth, depth = None, -1, 0
        for k, t in enumerate(toks):
            if _is_p(t, '('):
                if k > 0 and toks[k - 1].kind == IDENT and toks[k - 1].text not in CONTROL and \
                        depth > best_depth:
                    best, best_depth = toks[k - 1].text, depth
                depth += 1
            elif _is_p(t, ')'):
                depth -= 1
        if best is not None:
            return 'function', (best, 0)
    return None, None


def _lambda_name(toks, bracket_index):
    """Name for a lambda outside any function: `auto f = [..]` -> 'f (lambda)',
    `MACRO([..] ...` -> 'MACRO(lambda)', `d.infer = [..]` -> 'd.infer (lambda)'."""
    k = bracket_index - 1
    if k >= 0 and _is_p(toks[k], '='):
        j = k - 1
        parts = []
        while j >= 0 and (toks[j].kind == IDENT or _is_p(toks[j], '.') or _is_p(toks[j], '->')
                          or _is_p(toks[j], '::')):
            parts.append(toks[j].text)
            j -= 1
            if parts and toks[j + 1].kind == IDENT and (j < 0 or not (
                    _is_p(toks[j], '.') or _is_p(toks[j], '->') or _is_p(toks[j], '::'))):
                break
        if parts:
            return ''.join(reversed(parts)) + ' (lambda)'
    if k >= 1 and _is_p(toks[k], '(') and toks[k - 1].kind == IDENT:
        return toks[k - 1].text + '(lambda)'
    return '(lambda)'


class _Scope(object):
    """kind: 'file', 'ns' and 'class' hold declarations; 'init' is a brace group that is not a
    function (brace initialiser, enum body, ...); 'func' is a function body."""
    __slots__ = ('kind', 'head', 'paren', 'lam', 'lam_index', 'pending', 'func', 'last_fn')

    def __init__(self, kind):
        self.kind = kind
        self.head = []       # tokens of the current declaration / expression
        self.paren = 0       # ( and [ depth inside head
        self.lam = None      # paren depth at which a lambda introducer [..] was seen
        self.lam_index = -1  # index of that '[' in head
        self.pending = []    # lambdas in the current declaration (dropped if it is a function)
        self.func = None     # for 'func': (name, start_line, brace_line, role, function)
        self.last_fn = None  # function that just ended here (for function-try-block handlers)


def _lambda_can_start_after(prev):
    if prev is None:
        return True
    if prev.kind in (IDENT,):
        return prev.text in ('return', 'co_return', 'co_yield', 'throw', 'case', 'else', 'do')
    if prev.kind in (NUMBER, STRING, CHAR, GROUP):
        return False
    return prev.text not in (')', ']', '}', '>', '[', 'operator')


def find_functions(text, path='<text>', warnings=None):
    """Returns the functions of one file, in order. Unbalanced braces are reported by
    appending a message to `warnings` (a list), when given."""
    toks = tokenize(text)
    found = []
    stack = [_Scope('file')]
    depth_in_func = 0  # brace depth inside the current function body

    def container():
        for s in reversed(stack):
            if s.kind in ('file', 'ns', 'class'):
                return s
        return stack[0]

    def commit_pending(scope):
        found.extend(scope.pending)
        scope.pending = []

    def reset(scope):
        scope.head = []
        scope.paren = 0
        scope.lam = None
        scope.lam_index = -1

    for t in toks:
        top = stack[-1]
        if top.kind == 'func':
            if t.kind == PUNCT and t.text == '{':
                depth_in_func += 1
            elif t.kind == PUNCT and t.text == '}':
                if depth_in_func:
                    depth_in_func -= 1
                    continue
                stack.pop()
                name, start, brace, role, fn = top.func
                parent = stack[-1]
                if role == 'catch':  # handler of a function-try-block: extends that function
                    fn.end = t.line
                    reset(parent)
                    parent.last_fn = fn
                    continue
                fn = Function(path, name, start, brace, t.line)
                if role == 'lambda':
                    # part of an enclosing declaration: record once that declaration ends
                    parent.head.append(Tok(GROUP, '{}', t.line))
                    container().pending.append(fn)
                else:
                    found.append(fn)
                    reset(parent)
                    parent.last_fn = fn
            continue

        if t.kind != PUNCT:
            top.head.append(t)
            continue
        p = t.text
        if p == '{':
            head = top.head
            # 1. lambda body?
            if top.lam is not None and top.lam == top.paren:
                bi = top.lam_index
                s = _Scope('func')
                s.func = (_lambda_name(head, bi), head[bi].line, t.line, 'lambda', None)
                top.lam = None
                stack.append(s)
                depth_in_func = 0
                continue
            if top.kind in ('file', 'ns', 'class') and top.paren == 0:
                words = [x.text for x in head if x.kind == IDENT]
                last_fn, top.last_fn = top.last_fn, None
                if last_fn is not None and head and head[0].text == 'catch':
                    s = _Scope('func')
                    s.func = (last_fn.name, last_fn.start, last_fn.brace, 'catch', last_fn)
                    stack.append(s)
                    depth_in_func = 0
                    continue
                if _is_namespace_head(head) or \
                        (len(head) >= 2 and head[-2].text == 'extern' and head[-1].kind == STRING):
                    commit_pending(top)  # namespace / extern "C" block
                    reset(top)
                    stack.append(_Scope('ns'))
                    continue
                kind, info = analyse_head(head)
                if kind == 'function':
                    name, start_index = info
                    start_line = head[start_index].line if head else t.line
                    s = _Scope('func')
                    s.func = (name, start_line, t.line, 'function', None)
                    top.pending = []  # lambdas in default args / init lists belong to it
                    stack.append(s)
                    depth_in_func = 0
                    continue
                if kind is None and 'enum' not in words and not _has_top_level_eq(head):
                    # class/struct/union body, or any other block that may hold declarations
                    # (a brace initialiser such as `int x{1}` read this way holds none)
                    commit_pending(top)
                    reset(top)
                    stack.append(_Scope('class'))
                    continue
            stack.append(_Scope('init'))
            continue
        if p == '}':
            if len(stack) == 1:
                if warnings is not None:
                    warnings.append('%s:%d: unmatched }' % (path, t.line))
                reset(top)  # unbalanced; recover
                continue
            stack.pop()
            parent = stack[-1]
            if top.kind in ('ns', 'class'):
                commit_pending(top)
                reset(parent)
            else:  # init group: part of the enclosing declaration / expression
                parent.head.append(Tok(GROUP, '{}', t.line))
            continue
        # other punctuation
        if p in ('(', '['):
            if p == '[' and top.lam is not None and top.lam_index == len(top.head) - 1:
                top.lam = None  # '[[': an attribute such as [[noreturn]], not a lambda
            elif p == '[' and top.lam is None and _lambda_can_start_after(top.head[-1] if top.head else None):
                top.lam = top.paren
                top.lam_index = len(top.head)
            top.paren += 1
        elif p in (')', ']'):
            top.paren = max(0, top.paren - 1)
            if top.lam is not None and top.paren < top.lam:
                top.lam = None
        elif p in (';', ',', '=') and top.lam is not None and top.paren == top.lam:
            top.lam = None
        if p == ';' and top.kind in ('file', 'ns', 'class') and top.paren == 0:
            commit_pending(top)
            reset(top)
            continue
        if p == ':' and top.kind == 'class' and top.paren == 0 and len(top.head) >= 1 and \
                all(x.kind == IDENT and x.text in ACCESS for x in top.head):
            reset(top)
            continue
        top.head.append(t)
    # end of file: anything still open is dropped; pending lambdas are kept
    if len(stack) > 1 and warnings is not None:
        what = stack[-1].func[0] if stack[-1].kind == 'func' else stack[-1].kind
        warnings.append('%s: unbalanced braces at the end of the file (open: %s)' % (path, what))
    for s in stack:
        found.extend(s.pending)
    found.sort(key=lambda f: f.start)
    return found


def _is_namespace_head(head):
    """`namespace`, `namespace a::b`, `inline namespace v1` (possibly after a macro
    invocation that has no ';')."""
    for k in range(len(head) - 1, -1, -1):
        t = head[k]
        if t.kind == IDENT and t.text == 'namespace':
            return True
        if not (t.kind == IDENT or _is_p(t, '::')):
            return False
    return False


def _has_top_level_eq(head):
    paren = angle = 0
    for k, t in enumerate(head):
        if t.kind != PUNCT:
            continue
        if t.text in ('(', '['):
            paren += 1
        elif t.text in (')', ']'):
            paren = max(0, paren - 1)
        elif t.text == '<' and paren == 0 and k > 0 and head[k - 1].kind == IDENT:
            angle += 1
        elif t.text == '>' and paren == 0 and angle:
            angle -= 1
        elif t.text == '=' and paren == 0 and angle == 0:
            return True
    return False


# ----------------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------------

def iter_sources(root):
    root = os.path.abspath(root)
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        keep = []
        for d in sorted(dirnames):
            if d.startswith('.') or d.startswith('build') or d in SKIP_ANY_DIRS:
                continue
            if rel == '.' and d in SKIP_TOP_DIRS:
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            if f.endswith(SOURCE_EXTS) and not f.endswith(SKIP_FILE_SUFFIXES):
                full = os.path.join(dirpath, f)
                yield full, os.path.relpath(full, root)


def scan(root):
    """Returns (functions, number of files scanned)."""
    funcs = []
    nfiles = 0
    warnings = []
    for full, rel in iter_sources(root):
        with open(full, 'rb') as fh:
            text = fh.read().decode('utf-8', 'replace')
        funcs.extend(find_functions(text, rel, warnings))
        nfiles += 1
    for w in warnings:
        sys.stderr.write('function_length: warning: %s\n' % w)
    return funcs, nfiles


def _fmt(f, limit):
    return '%s:%d: function %s is %d lines (max %d)' % (f.path, f.start, f.name, f.length, limit)


def _by_length(funcs):
    return sorted(funcs, key=lambda f: (-f.length, f.path, f.start))


# ----------------------------------------------------------------------------------------------
# Self-test
# ----------------------------------------------------------------------------------------------

def _long_body(n):
    return ''.join('  x += %d;\n' % i for i in range(n))


SELF_TESTS = [
    # (description, source, expected [(name, start_line, length)])
    ('long free function',
     'namespace a {\n'
     'int longOne(int x) {\n' + _long_body(130) + '  return x;\n}\n'
     '}  // namespace a\n',
     [('longOne', 2, 133)]),
    ('class with inline method, out-of-line member, enum, access labels',
     'class Foo : public Bar<int> {\n'
     ' public:\n'
     '  enum class E : int { A, B };\n'
     '  int get() const { return v_; }\n'
     '  bool operator==(const Foo& o) const noexcept {\n'
     '    return v_ == o.v_;\n'
     '  }\n'
     '  explicit operator bool() const { return v_ != 0; }\n'
     '  int operator()(int a) { return a; }\n'
     ' private:\n'
     '  int v_ = 0;\n'
     '};\n'
     'template <typename T>\n'
     'void Foo::set(T v) & {\n'
     '  v_ = v;\n'
     '}\n'
     'Foo::~Foo() {}\n'
     '[[noreturn]] void fail(const std::string& m) {\n'
     '  throw Error(m);\n'
     '}\n'
     'struct Q {\n'
     '  [[nodiscard]] int a() const { return 1; }\n'
     '  int b[2] = {1, 2};\n'
     '  int c() { return b[0]; }\n'
     '};\n',
     [('get', 4, 1), ('operator==', 5, 3), ('operator bool', 8, 1), ('operator()', 9, 1),
      ('Foo::set', 13, 4), ('Foo::~Foo', 17, 1), ('fail', 18, 3), ('a', 22, 1), ('c', 24, 1)]),
    ('lambda inside a function is part of it',
     'void outer() {\n'
     '  auto f = [&](int a) {\n'
     '    if (a) { return 1; }\n'
     '    return 2;\n'
     '  };\n'
     '  std::sort(v.begin(), v.end(), [](int a, int b) { return a < b; });\n'
     '}\n',
     [('outer', 1, 7)]),
    ('string containing braces and escaped quotes',
     'const char* s() {\n'
     '  return "}{ \\" } {";\n'
     '}\n'
     'char c() { return \'}\'; }\n'
     'char d() { return \'\\\'\'; }\n'
     'int e() { return 1\'000\'000; }\n',
     [('s', 1, 3), ('c', 4, 1), ('d', 5, 1), ('e', 6, 1)]),
    ('raw string with braces',
     'std::string q() {\n'
     '  return R"x(\n'
     '    } } } "( )" \n'
     '  )x";\n'
     '}\n'
     'int SAME_UPPER() { return 0; }\n'
     'DEFINE_GETTERS(input, true)\n'
     'DEFINE_GETTERS(output, false)\n'
     '\n'
     'int run(int a) {\n'
     '  return a;\n'
     '}\n',
     [('q', 1, 5), ('SAME_UPPER', 6, 1), ('run', 10, 3)]),
    ('comments and preprocessor lines with braces',
     '// void fake() {\n'
     '/* } } { */\n'
     '#define OPEN {\n'
     '#define MULTI(x) \\\n'
     '  void x() { \\\n'
     '  }\n'
     'int real() {  // }\n'
     '  /* { */ return 0;\n'
     '}\n'
     '#ifdef A\n'
     'int alt(int a) {\n'
     '#else\n'
     'int alt() {\n'
     '#endif\n'
     '  return 1;\n'
     '}\n'
     '#if 0\n'
     'void gone() {\n'
     '#else\n'
     'void kept() {\n'
     '#endif\n'
     '}\n',
     [('real', 7, 3), ('alt', 11, 6), ('kept', 20, 3)]),
    ('namespace-scope brace initialisers and lambdas',
     'namespace {\n'
     'const std::map<std::string, int> kTable = {\n'
     '    {"a", 1},\n'
     '    {"b", 2},\n'
     '};\n'
     'int arr[] {1, 2, 3};\n'
     'struct P { int x; } kP{1};\n'
     'extern "C" {\n'
     'int cfun(void) { return 0; }\n'
     '}\n'
     'auto kSquare = [](int v) -> int {\n'
     '  return v * v;\n'
     '};\n'
     '}  // namespace\n'
     'ATC_REGISTER_OP([] {\n'
     '  OpDef d;\n'
     '  d.infer = [](Graph&, Node& n) {\n'
     '    n.check();\n'
     '  };\n'
     '  return d;\n'
     '}());\n',
     [('cfun', 9, 1), ('kSquare (lambda)', 11, 3), ('ATC_REGISTER_OP(lambda)', 15, 7)]),
    ('macro invocations without ; before a namespace, template default arguments',
     'ATC_KERNEL(concat)\n'
     'ATC_KERNEL(split)\n'
     '\n'
     'namespace {\n'
     'int k{5};\n'
     'ATCK_INLINE int total(const int* p) {\n'
     '  return p[0];\n'
     '}\n'
     'template <class T = int, int N = (2 > 1)>\n'
     'struct Box {\n'
     '  T get() const {\n'
     '    return v;\n'
     '  }\n'
     '  T v{};\n'
     '};\n'
     '}  // namespace\n'
     'void after() {}\n',
     [('total', 6, 3), ('get', 11, 3), ('after', 17, 1)]),
    ('constructor with initializer list',
     'Foo::Foo(int a, std::function<void()> cb)\n'
     '    : Base(a), a_(a), b_{a, 2}, cb_([this] { run(); }), v_{} {\n'
     '  init();\n'
     '}\n'
     'struct S {\n'
     '  S() noexcept : x{1} {}\n'
     '  int x;\n'
     '};\n'
     'template <class T>\n'
     'auto make(T t) -> std::vector<T> {\n'
     '  return {t};\n'
     '}\n'
     'void S::run() try {\n'
     '  go();\n'
     '} catch (const std::exception& e) {\n'
     '  fail();\n'
     '}\n'
     'static void (*pick(int k))(int) {\n'
     '  return nullptr;\n'
     '}\n'
     'void ::global() {}\n',
     [('Foo::Foo', 1, 4), ('S', 6, 1), ('make', 9, 4), ('S::run', 13, 5), ('pick', 18, 3),
      ('::global', 21, 1)]),
]


def _self_test_tree():
    long_src = SELF_TESTS[0][1]  # longOne: 133 lines
    tmp = tempfile.mkdtemp(prefix='function_length_')
    try:
        for rel in ('atc/long.cpp', 'kernels/lib/k.cpp', 'tests/unit/t.cpp', 'build/gen.cpp',
                    'build-rel/gen.cpp', '.git/x.cpp', 'third_party/x.cc', 'atc/x.pb.cc',
                    'atc/notes.txt'):
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), 'w') as fh:
                fh.write(long_src)
        with open(os.path.join(tmp, 'atc', 'short.h'), 'w') as fh:
            fh.write('inline int s() { return 1; }\n')
        cases = [(['--root', tmp], 1,
                  ['atc/long.cpp:2: function longOne is 133 lines (max 120)']),
                 (['--root', tmp, '--max', '133'], 0, []),
                 (['--root', tmp, '--max', '132'], 1,
                  ['atc/long.cpp:2: function longOne is 133 lines (max 132)'])]
        bad = 0
        for argv, want_rc, want_lines in cases:
            out = io.StringIO()
            saved, sys.stdout = sys.stdout, out
            try:
                rc = main(argv)
            finally:
                sys.stdout = saved
            lines = [l for l in out.getvalue().splitlines() if ': function ' in l]
            summary = out.getvalue().splitlines()[-1]
            if rc != want_rc or lines != want_lines or '2 functions in 2 files' not in summary:
                bad += 1
                sys.stdout.write('FAIL tree %s: rc %d, output:\n%s' % (argv[2:], rc, out.getvalue()))
        if not bad:
            sys.stdout.write('ok   tree scan: skipped folders, --max, exit status\n')
        return bad
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def self_test():
    failures = 0
    for desc, src, expected in SELF_TESTS:
        got = [(f.name, f.start, f.length) for f in find_functions(src, 'selftest.cpp')]
        if got != expected:
            failures += 1
            sys.stdout.write('FAIL %s\n  expected %r\n  got      %r\n' % (desc, expected, got))
        else:
            sys.stdout.write('ok   %s\n' % desc)
    # end-to-end on a small tree: skipped folders, the limit, the output and the exit status
    failures += _self_test_tree()
    if failures:
        sys.stdout.write('self-test: %d failure(s)\n' % failures)
        return 2
    sys.stdout.write('self-test: all %d cases passed\n' % len(SELF_TESTS))
    return 0


def main(argv):
    default_root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 '..', '..'))
    ap = argparse.ArgumentParser(description='Fails when a C++ function outside kernels/ and '
                                             'tests/ is longer than --max lines.')
    ap.add_argument('--max', type=int, default=120, help='longest allowed function (lines)')
    ap.add_argument('--root', default=default_root, help='tree to scan (default: repo root)')
    ap.add_argument('--list-all', type=int, metavar='N', default=0,
                    help='also print the N longest functions, over the limit or not')
    ap.add_argument('--self-test', action='store_true', help='run the embedded tests')
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    if not os.path.isdir(args.root):
        sys.stderr.write('function_length: no such folder: %s\n' % args.root)
        return 2
    funcs, nfiles = scan(args.root)
    ranked = _by_length(funcs)
    if args.list_all:
        sys.stdout.write('%d longest functions:\n' % min(args.list_all, len(ranked)))
        for f in ranked[:args.list_all]:
            sys.stdout.write('  %s:%d: %s %d lines\n' % (f.path, f.start, f.name, f.length))
    offenders = [f for f in ranked if f.length > args.max]
    for f in offenders:
        sys.stdout.write(_fmt(f, args.max) + '\n')
    if offenders:
        sys.stdout.write('function_length: %d function(s) over %d lines (%d functions in %d files '
                         'checked)\n' % (len(offenders), args.max, len(funcs), nfiles))
        return 1
    sys.stdout.write('function_length: ok, no function over %d lines (%d functions in %d files '
                     'checked)\n' % (args.max, len(funcs), nfiles))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
