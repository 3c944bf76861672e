"""The user's files, read and written safely: what a file is before it is read whole, reading by
blocks (a gzip stream inflated block by block, under :data:`~adaptsched.limits.MAX_GZIP_RATIO`),
no output written over one of the command's inputs, and a write error that names its file.

* :func:`opened` reads a file by blocks, inflating gzip as it goes (a 1 MB gzip of 1 GB of zeros
  is judged on its first 64 KiB, never inflated whole);
* :func:`text_kind` says what the first bytes of a file are: ``gzip``, ``utf-16-le``,
  ``utf-16-be``, ``binary`` or ``text``; :func:`looks_like_swf` whether text is an SWF trace;
* :func:`refuse_overwriting` stops a command whose output is one of its inputs (the same file,
  by device and inode) or another of its outputs;
* :func:`naming` gives an ``OSError`` raised while writing a file that file's name (a full disk
  says "No space left on device" without one).
"""

from __future__ import annotations

import codecs
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from adaptsched.errors import InputError, UsageError
from adaptsched.limits import MAX_GZIP_RATIO, MAX_TEXT_BYTES

#: Bytes read (and inflated) at a time.
BLOCK_BYTES = 1 << 22
#: The bytes judged to tell text from binary data.
HEAD_BYTES = 1 << 16
#: Inflated bytes below which no gzip ratio is judged (a small file of repeated lines).
_RATIO_FLOOR = 1 << 23
GZIP_MAGIC = b"\x1f\x8b"

PathLike = str | os.PathLike[str]


@contextmanager
def opened(
    path: PathLike, *, gunzip: bool = True, raw: Callable[[bytes], object] | None = None, what: str | None = None
) -> Iterator[tuple[bool, Iterator[bytes]]]:
    """``with opened(path) as (gzipped, chunks)``: whether ``path`` is gzip (by its magic bytes),
    and its bytes by blocks of at most :data:`BLOCK_BYTES`, inflated if it is gzip and ``gunzip``;
    ``raw`` sees each block as stored (a digest). The file is closed at the end of the block.
    Errors are :class:`InputError`: a missing or unreadable file ("no such ``what`` file"),
    corrupt gzip, or one inflating past :data:`MAX_GZIP_RATIO` times its size."""
    name = os.fspath(path)
    try:
        handle = open(name, "rb")
    except OSError as error:
        raise InputError(name, _open_problem(error, what)) from None
    with handle:
        stored = _stored(handle, name, raw, what)
        first = next(stored, b"")
        gzipped = first[:2] == GZIP_MAGIC
        chunks = _chain(first, stored)
        yield gzipped, _inflated(chunks, name) if gzipped and gunzip else chunks


def _open_problem(error: OSError, what: str | None) -> str:
    if isinstance(error, FileNotFoundError):
        return f"no such {what} file" if what else "no such file"
    if isinstance(error, IsADirectoryError):
        return f"a folder (directory), not a {what} file" if what else "a folder (directory), not a file"
    return f"cannot read: {error.strerror or error}"


def _stored(handle: BinaryIO, name: str, raw: Callable[[bytes], object] | None, what: str | None) -> Iterator[bytes]:
    while True:
        try:
            block = handle.read(BLOCK_BYTES)
        except OSError as error:
            raise InputError(name, _open_problem(error, what)) from None
        if not block:
            return
        if raw is not None:
            raw(block)
        yield block


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _inflated(stored: Iterable[bytes], name: str) -> Iterator[bytes]:
    """A gzip stream (one member or several, as ``gzip.decompress`` reads them), inflated by
    blocks; refused past :data:`MAX_GZIP_RATIO` times the compressed bytes it has consumed."""
    inflate = zlib.decompressobj(31)
    fed = False  # the current member has been given bytes
    consumed = size_out = 0
    try:
        for block in stored:
            data = block
            while True:
                if data and not fed and data[:2] != GZIP_MAGIC:
                    raise InputError(name, "corrupt or truncated gzip data: trailing data after the gzip stream")
                fed = fed or bool(data)
                out = inflate.decompress(data, BLOCK_BYTES)
                left = inflate.unconsumed_tail
                if inflate.eof:  # a member ends: another may follow
                    left = inflate.unused_data + left
                    inflate, fed = zlib.decompressobj(31), False
                consumed += len(data) - len(left)
                data = left
                if out:
                    size_out += len(out)
                    if size_out > _RATIO_FLOOR and size_out > MAX_GZIP_RATIO * consumed:
                        raise InputError(
                            name,
                            f"inflates to more than {MAX_GZIP_RATIO} times its size ({size_out:,} bytes from "
                            f"{consumed:,} so far): not a trace or a workload (a 'gzip bomb'?)",
                        )
                    yield out
                if not data and len(out) < BLOCK_BYTES:  # this block done, nothing held back
                    break
        if fed:
            raise InputError(
                name, "corrupt or truncated gzip data: it ends before the end-of-stream marker was reached"
            )
    except zlib.error as error:
        raise InputError(name, f"corrupt or truncated gzip data: {error}") from None


def head(chunks: Iterator[bytes], size: int = HEAD_BYTES) -> tuple[bytes, Iterator[bytes]]:
    """The first ``size`` bytes of ``chunks`` (fewer at its end), and every byte again."""
    taken: list[bytes] = []
    got = 0
    for chunk in chunks:
        taken.append(chunk)
        got += len(chunk)
        if got >= size:
            break
    joined = b"".join(taken)
    return joined[:size], _chain(joined, chunks)


def text_kind(data: bytes) -> str:
    """What the first bytes of a file are: ``gzip``, ``utf-16-le`` or ``utf-16-be`` (a byte-order
    mark, or a NUL byte beside nearly every ASCII one), ``binary`` (another NUL byte, or more
    than 10 % of control characters but tabs and line ends) or ``text``.

    >>> text_kind(b"; Version: 2.2\\n"), text_kind("; Version".encode("utf-16")), text_kind(bytes(64))
    ('text', 'utf-16-le', 'binary')
    """
    if data[:2] == GZIP_MAGIC:
        return "gzip"
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return "utf-16-le" if data[:2] == codecs.BOM_UTF16_LE else "utf-16-be"
    if b"\0" in data:
        sample = data[: len(data) & ~1]
        if sample:
            odd, even = sample[1::2], sample[0::2]
            if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
                return "utf-16-le"
            if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
                return "utf-16-be"
        return "binary"
    controls = len(data) - len(data.translate(None, _CONTROLS))
    return "binary" if controls > 0.1 * max(len(data), 1) else "text"


_CONTROLS = bytes(byte for byte in range(32) if byte not in (9, 10, 12, 13))
_SWF_JOB = re.compile(r"\s*(?:-?[0-9][0-9.]*\s+){17}-?[0-9][0-9.]*\s*")


def looks_like_swf(text: str) -> bool:
    """Whether ``text`` (a file's first lines) is an SWF trace: its first line that is not blank
    is a ``;`` comment or a job line of 18 numbers.

    >>> looks_like_swf("; Version: 2.2\\n"), looks_like_swf(" ".join(["1"] * 18)), looks_like_swf('{"nb_res"')
    (True, True, False)
    """
    for line in text.lstrip("\ufeff").splitlines():
        if line.strip():
            return line.lstrip().startswith(";") or _SWF_JOB.fullmatch(line) is not None
    return False


def rest_of(path: PathLike, chunks: Iterable[bytes], what: str = "file") -> str:
    """The UTF-8 text of ``chunks`` (a whole file), refused past :data:`MAX_TEXT_BYTES`."""
    parts = []
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_TEXT_BYTES:
            raise InputError(
                os.fspath(path),
                f"larger than {MAX_TEXT_BYTES:,} bytes, the largest {what} file adaptsched reads whole "
                "(docs/errors.md, limits)",
            )
        parts.append(chunk)
    try:
        return b"".join(parts).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            os.fspath(path),
            f"not UTF-8 text (byte {error.object[error.start]:#04x} at offset {error.start:,}: Latin-1 or binary "
            f"data?): a {what} file is UTF-8 text",
        ) from None


def read_text(path: PathLike, what: str = "file") -> str:
    """A small text file read whole (a platform, a sweep spec, an option's file), judged on its
    first bytes first: gzip, UTF-16 and binary data are refused, naming the file, and so is a
    file larger than :data:`MAX_TEXT_BYTES` (``/dev/zero`` ends at its first block)."""
    with opened(path, gunzip=False, what=what) as (_, chunks):
        first, chunks = head(chunks)
        kind = text_kind(first)
        if kind == "gzip":
            raise InputError(
                os.fspath(path), f"not a text file: it is gzip-compressed (decompress it first: zcat {path})"
            )
        if kind.startswith("utf-16"):
            raise InputError(
                os.fspath(path), f"UTF-16 text: a {what} file is UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 {path} > OUT)"
            )
        if kind == "binary":
            raise InputError(os.fspath(path), f"not a text file (it holds binary data): a {what} file is UTF-8 text")
        return rest_of(path, chunks, what)


# -- outputs ----------------------------------------------------------------------------------
def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether two paths name one existing file (device and inode: links and ``./`` included)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def refuse_overwriting(
    outputs: Sequence[tuple[str, PathLike]],
    inputs: Sequence[tuple[str, PathLike]],
    hint: str = "name another output file",
) -> None:
    """A :class:`UsageError` when an output is one of the inputs (by device and inode), or two
    outputs are one file; each pair is (what the command line calls it, its path), e.g.
    ``("the trace", "t.swf.gz")``; ``hint`` says what to do instead."""
    for what, output in outputs:
        for named, given in inputs:
            if same_file(output, given):
                raise UsageError(f"{what} {output} is {named} {given}: writing it would destroy {named}; {hint}")
    seen: dict[str, tuple[str, PathLike]] = {}
    for what, output in outputs:
        key = os.path.realpath(output)
        if key in seen:
            raise UsageError(f"{what} {output} is {seen[key][0]} {seen[key][1]} too: name two different files")
        seen[key] = (what, output)


@contextmanager
def naming(path: PathLike) -> Iterator[None]:
    """Gives an ``OSError`` raised inside it ``path`` as its file name if it has none (``write``
    and ``close`` on a full disk raise one without a file name)."""
    try:
        yield
    except OSError as error:
        if error.filename is None:
            error.filename = os.fspath(path)
        raise


def write_text(path: PathLike, text: str, *, encoding: str = "utf-8") -> Path:
    """Writes ``text`` to ``path`` through a temporary file in the same folder, renamed at the
    end: a reader never sees half a file, and a failed write (a full disk, naming the file)
    leaves the previous file as it was. A path that exists but is not a regular file (a device,
    a pipe) is written in place."""
    path = Path(path)
    if path.exists() and not path.is_file():  # /dev/stdout, a pipe: written in place, never replaced
        with naming(path), open(path, "w", encoding=encoding) as handle:
            handle.write(text)
        return path
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with naming(path):
            tmp.write_text(text, encoding=encoding)
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
