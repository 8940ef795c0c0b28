"""What `transcript show` keeps of a message's content out of memory: the content of a
printed message, as a second printing needs it, and the content of a message still open
once it grows large (`Progress` in `cli.py` decides when).

Records live in an anonymous temporary file; each is chained to the message's previous
record, so that a message's content can be read back part by part (`Spill.records`) and
written out without ever being whole in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any, NamedTuple


class Record(NamedTuple):
    """One part of a message's content as spilled: its text (joined as streamed), whether
    its last block is text, its blocks and chunk `_meta`s as JSON array items (None for
    text output), and whether it starts afresh (the content before it no longer counts)."""

    text: str
    previous_is_text: bool
    blocks_json: str | None
    chunks_json: str | None
    replaced: bool


class Shown:
    """What a printed message's second record needs of the content it was printed with,
    which the store has let go of: the text as joined so far, and for JSON output the
    content blocks and chunk `_meta`s as JSON array items (each `None` for text output)."""

    __slots__ = ("blocks_json", "chunks_json", "previous_is_text", "text")

    def __init__(
        self,
        text: str,
        previous_is_text: bool,
        blocks_json: str | None = None,
        chunks_json: str | None = None,
    ) -> None:
        self.text = text
        self.previous_is_text = previous_is_text
        self.blocks_json = blocks_json
        self.chunks_json = chunks_json


class Spill:
    """`Shown` records kept out of memory until a second printing reads them back: an
    anonymous temporary file (gone when closed, or when the process ends), made on first
    use. Each record is its length (8 bytes) and a JSON array (ASCII: any text goes): a
    part of a message's content (text, blocks, chunks), whether that part starts afresh
    (its first printing, or a snapshot since), where the message's previous record is,
    and the last character of the message's text so far (to join the next part)."""

    _LENGTH = 8

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None
        self._end = 0

    def put(self, part: Shown, *, previous: int | None, replaced: bool) -> int:
        """Write a record after `previous` (None: the first); returns where it is."""
        if self._file is None:
            import tempfile

            self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
        text_end = part.text[-1:]
        if not text_end and not replaced and previous is not None:
            text_end = self.tail(previous)[0]
        fields = [
            part.text,
            part.previous_is_text,
            part.blocks_json,
            part.chunks_json,
            replaced,
            previous,
            text_end,
        ]
        data = json.dumps(fields).encode()
        where = self._end
        self._file.seek(where)
        self._file.write(len(data).to_bytes(self._LENGTH, "little") + data)
        self._end = where + self._LENGTH + len(data)
        return where

    def _read(self, where: int) -> list[Any]:
        assert self._file is not None  # a record was put
        self._file.seek(where)
        size = int.from_bytes(self._file.read(self._LENGTH), "little")
        record: list[Any] = json.loads(self._file.read(size))
        return record

    def tail(self, where: int) -> tuple[str, bool]:
        """The last character of the message's text so far, and whether its last block
        is text, after the record at `where`."""
        record = self._read(where)
        return record[6], record[1]

    def get(self, where: int) -> Shown:
        """The message's content as its records have it, joined."""
        texts: list[str] = []
        blocks: list[str] = []
        chunks: list[str] = []
        latest = self._read(where)
        record: list[Any] | None = latest
        content_done = False
        while record is not None:
            text, _, blocks_json, chunks_json, replaced, previous, _ = record
            if not content_done:
                texts.append(text)
                if blocks_json:
                    blocks.append(blocks_json)
                content_done = replaced
            if chunks_json:
                chunks.append(chunks_json)
            record = None if previous is None else self._read(previous)
        as_json = latest[2] is not None  # text output keeps no JSON
        return Shown(
            "".join(reversed(texts)),
            latest[1],
            ", ".join(reversed(blocks)) if as_json else None,
            ", ".join(reversed(chunks)) if as_json else None,
        )

    def chain(self, where: int) -> tuple[list[int], int]:
        """The positions of the records of the message whose latest record is at `where`,
        oldest first, and the index of the first whose content counts (the latest that
        starts afresh; chunk `_meta`s of the earlier ones still count). Only positions are
        held: the records are read one at a time (`record`)."""
        chain: list[int] = []
        start = None
        position: int | None = where
        while position is not None:
            fields = self._read(position)
            chain.append(position)
            if start is None and fields[4]:
                start = len(chain) - 1
            position = fields[5]
        chain.reverse()
        first = 0 if start is None else len(chain) - 1 - start
        return chain, first

    def record(self, where: int) -> Record:
        text, previous_is_text, blocks_json, chunks_json, replaced, _, _ = self._read(where)
        return Record(text, previous_is_text, blocks_json, chunks_json, replaced)

    def parts(self, where: int) -> Iterator[tuple[bool, Record]]:
        """Each record of the message at `where`, oldest first, with whether its content
        (text and blocks) counts."""
        chain, first = self.chain(where)
        for index, position in enumerate(chain):
            yield index >= first, self.record(position)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
