"""File names in messages, quoted exactly as GNU coreutils quotes them.

coreutils names files in error messages with gnulib's ``quotef``: the
``shell-escape`` quoting style with ``:`` also quoted. A name made only of
harmless characters is printed as it is; any other is single-quoted, with
unprintable bytes as ``$'\\ooo'`` escapes (``'a'$'\\n''b'``), or double-quoted
when an apostrophe is its only trouble (``"it's"``). What is printable depends
on the locale's character set, as it does for coreutils.

This is a port of the part of gnulib's ``quotearg_buffer_restyled`` that those
styles use; the checksum lines themselves use a different, simpler escaping
(``escape_name``).
"""

from __future__ import annotations

from variants._typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Optional, Tuple

# Characters that never need quoting (gnulib's list, ':' aside).
_SAFE = frozenset(b"%+,-./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ]_abcdefghijklmnopqrstuvwxyz")
# Characters a shell treats specially wherever they are.
_SHELL_SPECIAL = frozenset(b" !\"$&()*;<=>[^`|?\\'")
# Escapes that C and $'...' share.
_C_ESCAPES = {0x07: b"a", 0x08: b"b", 0x0C: b"f", 0x0A: b"n", 0x0D: b"r", 0x09: b"t", 0x0B: b"v"}

_utf8: Optional[bool] = None


def locale_is_utf8() -> bool:
    """Whether the character-type locale (LC_ALL, LC_CTYPE, LANG) uses UTF-8."""
    global _utf8
    if _utf8 is None:
        import locale  # here, not at the top: it imports re, which a plain run does not need

        try:
            codeset = locale.nl_langinfo(locale.CODESET)
        except (AttributeError, ValueError):  # pragma: no cover - not on Linux
            codeset = locale.getpreferredencoding(False)
        _utf8 = codeset.replace("-", "").upper() == "UTF8"
    return _utf8


def _printable_char(char: str) -> bool:
    # glibc's "print" class: every assigned character but controls and the
    # line and paragraph separators.
    import unicodedata

    return unicodedata.category(char) not in ("Cc", "Cn", "Zl", "Zp")


def _sequence_at(name: bytes, i: int, utf8: bool) -> Tuple[int, bool]:
    """The length of the (multibyte) character at ``name[i]`` and whether it is printable.

    An invalid or truncated sequence counts as one unprintable byte: every
    byte of it ends up escaped either way.
    """
    byte = name[i]
    if byte < 0x80:
        return 1, 0x20 <= byte < 0x7F
    if not utf8:
        return 1, False
    length = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
    try:
        char = name[i : i + length].decode("utf-8")
    except UnicodeDecodeError:
        return 1, False
    return length, _printable_char(char)


def _needs_quotes(name: bytes, utf8: bool) -> bool:
    """Whether the name cannot be shown bare (gnulib's first, quote-eliding pass)."""
    if not name:
        return True
    i = 0
    while i < len(name):
        byte = name[i]
        if byte in _SAFE:
            i += 1
            continue
        if byte == 0x3A:  # ':' (quotef quotes it too)
            return True
        if byte in _SHELL_SPECIAL or byte in _C_ESCAPES:
            return True
        if byte in b"#~" and i == 0:
            return True
        if byte in b"{}" and len(name) == 1:
            return True
        if byte in b"#~{}":
            i += 1
            continue
        length, printable = _sequence_at(name, i, utf8)
        if not printable:
            return True
        i += length
    return False


def quote_name(name: bytes, utf8: Optional[bool] = None) -> bytes:
    """``name`` as coreutils shows a file name in a message (gnulib ``quotef``)."""
    if utf8 is None:
        utf8 = locale_is_utf8()
    if not _needs_quotes(name, utf8):
        return name
    quoted, in_dollar, all_plain, apostrophe = _shell_quote(name, utf8, False)
    if apostrophe:
        if all_plain:
            return b'"' + name + b'"'
        if in_dollar:
            # gnulib renders such a name twice and does not reset its "inside
            # $'...'" flag in between; coreutils 9.1 prints what that gives.
            # (gnulib's fix is in coreutils 9.6 and later: variants-sum keeps 9.1's.)
            quoted = _shell_quote(name, utf8, True)[0]
    return quoted


def _shell_quote(name: bytes, utf8: bool, in_dollar: bool) -> Tuple[bytes, bool, bool, bool]:
    """The single-quoted form; whether it ended inside $'...', had only
    double-quote-safe characters, had an apostrophe."""
    out = bytearray(b"'")
    all_plain = True
    apostrophe = False

    def plain(data: bytes) -> None:
        nonlocal in_dollar
        if in_dollar:
            out.extend(b"''")
            in_dollar = False
        out.extend(data)

    def escape(data: bytes) -> None:
        nonlocal in_dollar
        if not in_dollar:
            out.extend(b"'$'")
            in_dollar = True
        out.extend(b"\\" + data)

    i = 0
    while i < len(name):
        byte = name[i]
        if byte in _C_ESCAPES:
            escape(_C_ESCAPES[byte])
            all_plain = False
            i += 1
        elif byte == 0x27:  # an apostrophe: close, escape it, reopen
            apostrophe = True
            out.extend(b"'\\''")
            in_dollar = False
            i += 1
        elif byte in _SAFE or byte == 0x20:
            plain(name[i : i + 1])
            i += 1
        elif byte in b"#~{}":
            isolated = (byte in b"#~" and i == 0) or (byte in b"{}" and len(name) == 1)
            all_plain = all_plain and isolated
            plain(name[i : i + 1])
            i += 1
        elif byte in _SHELL_SPECIAL:
            all_plain = False
            plain(name[i : i + 1])
            i += 1
        else:
            length, printable = _sequence_at(name, i, utf8)
            if printable:
                plain(name[i : i + length])
            else:
                all_plain = False
                for b in name[i : i + length]:
                    escape(b"%03o" % b)
            i += length
    out.extend(b"'")
    return bytes(out), in_dollar, all_plain, apostrophe


def quote_word(word: str) -> str:
    """``word`` in the locale's quotation marks, as coreutils' ``quote`` gives it."""
    return f"\u2018{word}\u2019" if locale_is_utf8() else f"'{word}'"


def escape_name(name: bytes) -> bytes:
    """A name as a checksum line carries it: ``\\``, newline and CR escaped.

    The caller adds the leading backslash that marks an escaped line.
    """
    return name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def unescape_name(escaped: bytes) -> Optional[bytes]:
    """The inverse of ``escape_name``, or None for an invalid escape or a NUL byte."""
    if b"\0" in escaped:
        return None
    out = bytearray()
    i = 0
    n = len(escaped)
    while i < n:
        byte = escaped[i]
        if byte == 0x5C:
            if i + 1 == n:
                return None
            following = escaped[i + 1]
            if following == 0x6E:
                out.append(0x0A)
            elif following == 0x72:
                out.append(0x0D)
            elif following == 0x5C:
                out.append(0x5C)
            else:
                return None
            i += 2
        else:
            out.append(byte)
            i += 1
    return bytes(out)
