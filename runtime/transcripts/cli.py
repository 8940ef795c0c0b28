"""``acp-schema transcript show``: the session messages of a recorded ACP log, as it is read.

The log holds one JSON-RPC message per line, as an Agent sent them. It is read line by line
(never whole) and every `session/update` goes to `acp_schema.transcripts.TranscriptStore`
(`apply_skimming`: other update kinds are recognised by their tag, not decoded; session
messages take the store's fast path, and the output is the same bytes either way). Output
streams: a session message is printed once its transcript moves on to another session
message, and what only the whole log can tell (links, conflicts, messages changed after they
were printed) follows at the end. docs/session-messages.md describes both output forms.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from acp_schema._input import open_lines
from acp_schema.cli_common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_UNUSABLE,
    command_error,
    os_reason,
    usage_handler,
)
from acp_schema.cli_output import printable
from acp_schema.cli_output import shown as one_line

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers

    from .store import Link, MessageEntry, TranscriptStore

# Longest line read: a longer one (or a "file" without line breaks, like /dev/zero) stops
# the reading with one message instead of filling memory.
MAX_LINE_BYTES = 64 * 1024 * 1024


def register(commands: Subparsers) -> None:
    """Add the `transcript` command group to the `acp-schema` parser."""
    transcript = commands.add_parser("transcript", help="inspect session-message transcripts")
    transcript_commands = transcript.add_subparsers(dest="transcript_command", metavar="COMMAND")

    transcript.set_defaults(func=usage_handler(transcript))

    show = transcript_commands.add_parser(
        "show",
        help="print the session messages of a JSON-RPC log and how their views link",
        description="Read a log of JSON-RPC messages (one per line, as an Agent sent them), "
        "apply every session/update, and print the session messages as the log goes on, "
        "then how their views link. Lines that do not decode are reported on stderr with "
        "their number. Exit 0 if every line was fine, 1 if some were bad, 2 if the log "
        "cannot be read (or reading had to stop early).",
    )
    show.add_argument("log", type=Path, metavar="LOG.jsonl", help="the recorded log")
    show.add_argument(
        "--version",
        dest="protocol_version",
        choices=("v1", "v2"),
        default="v2",
        help="ACP protocol version of the log (default: v2)",
    )
    show.add_argument("--json", action="store_true", help="print JSON Lines, one record per line")
    show.set_defaults(func=_show)


def _show(args: argparse.Namespace) -> int:
    from .store import NotSessionUpdateError, TranscriptStore, UpdateDecodeError

    path: Path = args.log
    try:
        log = open_lines(path)
    except OSError as error:
        return _unreadable(path, error)
    store = TranscriptStore(args.protocol_version)
    output: Output = JsonLines(sys.stdout) if args.json else Text(sys.stdout)
    progress = Progress(output, store)
    bad = skipped = 0
    stopped: str | None = None
    number = 0
    with log:
        while True:
            try:  # only the reading: a closed stdout must reach the caller as it is
                line = log.readline(MAX_LINE_BYTES + 1)
            except OSError as error:
                stopped = f"cannot read {path}: {os_reason(error)}"
                break
            if not line:
                break
            number += 1
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                stopped = f"{path}:{number}: line longer than {MAX_LINE_BYTES} bytes"
                break
            if line.isspace():
                continue
            try:
                entry = store.apply_skimming(line)
            except NotSessionUpdateError:
                skipped += 1
                continue
            except UpdateDecodeError as error:
                bad += 1
                print(f"{path}:{number}: {error}", file=sys.stderr)
                output.bad_line(number, str(error))
                continue
            if entry is not None:
                progress.touched(entry)
    progress.finish()
    output.links(store)
    if stopped is not None:
        print(f"acp-schema transcript show: {stopped}; reading stopped", file=sys.stderr)
    output.summary(store, bad, skipped, stopped)
    if stopped is not None:
        return EXIT_UNUSABLE
    return EXIT_PROBLEMS if bad else EXIT_OK


def _unreadable(path: Path, error: OSError) -> int:
    return command_error("transcript show", f"cannot read {path}: {os_reason(error)}")


class Progress:
    """When to print a session message: once its transcript moves on, or at the end.

    A transcript has at most one open message: the one its latest session-message update
    was for. When an update for another message of that transcript arrives, the open one
    is printed. A message that changes after it was printed is printed once more at the
    end, marked as updated; so every message is printed at most twice.

    Once printed, a message's content is kept only as far as its second printing could
    need it (`Shown`: its text, or its JSON), and out of memory (`Spill`); the store lets
    go of the blocks. So memory grows with the number of messages, not with their content.
    """

    def __init__(self, output: Output, store: TranscriptStore) -> None:
        self.output = output
        self.store = store
        self.open: dict[str, MessageEntry] = {}
        self.printed: dict[MessageEntry, int] = {}  # where its latest spill record is
        self.changed: dict[MessageEntry, None] = {}  # in the order of their first change
        # Per transcript, the printed message its latest update was for: when the
        # transcript moves on, what that message received since is spilled too.
        self.refreshing: dict[str, MessageEntry] = {}
        self.spill = Spill()

    def touched(self, entry: MessageEntry) -> None:
        refreshed = self.refreshing.get(entry.session_id)
        if refreshed is not None and refreshed is not entry:
            del self.refreshing[entry.session_id]
            self._spill_since(refreshed)
        if entry in self.printed:
            self.changed[entry] = None
            self.refreshing[entry.session_id] = entry
            return
        current = self.open.get(entry.session_id)
        if current is not entry:
            if current is not None:
                self._print(current)
            self.open[entry.session_id] = entry

    def _print(self, entry: MessageEntry) -> None:
        shown = self.output.message(entry, updated=False, shown=None)
        self.printed[entry] = self.spill.put(shown, previous=None, replaced=True)
        self.store.release_content(entry)

    def _spill_since(self, entry: MessageEntry) -> None:
        """Spill what a printed message received since its last record, as one more record
        chained to it (each part written once, however often the message comes back)."""
        replaced = entry.replaced_since_release
        if not (replaced or entry.content or entry.chunks):
            return  # only identity or `_meta` came: the store holds those
        last = self.printed[entry]
        text_end, previous_is_text = ("", True) if replaced else self.spill.tail(last)
        part = self.output.part(entry, text_end, previous_is_text)
        self.printed[entry] = self.spill.put(part, previous=last, replaced=replaced)
        self.store.release_content(entry)

    def finish(self) -> None:
        for entry in self.open.values():
            self.output.message(entry, updated=False, shown=None)  # not printed again
        self.open.clear()
        for entry in self.changed:
            self.output.message(entry, updated=True, shown=self.spill.get(self.printed[entry]))
            self.store.release_content(entry)  # the last printing: what is left is links
        self.spill.close()


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

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def _content_text(entry: MessageEntry, shown: Shown | None) -> tuple[str, bool]:
    """The text of the entry's whole content, and whether its last block is text: the
    content it holds, after what was shown before (unless a snapshot replaced it since)."""
    if shown is None or entry.replaced_since_release:
        return joined_text(entry.content)
    return joined_text(entry.content, shown.text, shown.previous_is_text)


# --- the two output forms -----------------------------------------------------------------


class Output:
    """Where records go; `Text` and `JsonLines` say how."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def message(self, entry: MessageEntry, *, updated: bool, shown: Shown | None) -> Shown:
        """Print a message record; `shown` is what was kept of its first printing, if any.
        Returns what a second printing would need."""
        raise NotImplementedError

    def part(self, entry: MessageEntry, text_end: str, previous_is_text: bool) -> Shown:
        """What `message` would keep of the content `entry` holds, as it continues a text
        ending in `text_end` whose last block is text or not (`Progress._spill_since`)."""
        text, previous_is_text = joined_text(entry.content, text_end, previous_is_text)
        return Shown(text[len(text_end) :], previous_is_text)

    def bad_line(self, number: int, problem: str) -> None:
        """Text output reports bad lines on stderr only."""

    def links(self, store: TranscriptStore) -> None:
        raise NotImplementedError

    def summary(self, store: TranscriptStore, bad: int, skipped: int, stopped: str | None) -> None:
        raise NotImplementedError

    def _write(self, text: str) -> None:
        self.stream.write(text)


class Text(Output):
    """Lines for people, every string escaped so that no control character reaches a terminal."""

    def message(self, entry: MessageEntry, *, updated: bool, shown: Shown | None) -> Shown:
        mark = "  (changed after it was shown)" if updated else ""
        head = f"{entry.session_id}/{entry.message_id}: {participants(entry)}{mark}"
        text, previous_is_text = _content_text(entry, shown)
        body = text.split("\n") if text else ["(no content)"]
        lines = [one_line(head), *(f"      {printable(line)}" for line in body)]
        self._write("\n".join(lines) + "\n")
        self.stream.flush()  # a record is whole: show it now, not when a buffer fills
        return Shown(text, previous_is_text)

    def links(self, store: TranscriptStore) -> None:
        transcripts = store.transcripts()  # each holds a session message: a line or more
        if transcripts:
            self._write("Links, after the whole log:\n")
        for session_id in transcripts:  # written as they go: the lines are not kept
            entries = store.entries(session_id)
            count = f"{len(entries)} session message{'s' if len(entries) != 1 else ''}"
            lines = [f"Transcript {session_id} ({count})"]
            for entry in entries:
                link = store.link(session_id, entry.message_id)
                lines.append(f"  {entry.message_id}: {participants(entry)}  [{link}]")
                lines.extend(f"      ! {conflict}" for conflict in entry.conflicts)
                self._write("".join(f"{one_line(line)}\n" for line in lines))
                lines.clear()

    def summary(self, store: TranscriptStore, bad: int, skipped: int, stopped: str | None) -> None:
        if not len(store):
            self._write("No session messages.\n")
        end = "; reading stopped early" if stopped else ""
        self._write(f"{bad} bad line(s), {skipped} other message(s) skipped{end}\n")


class JsonLines(Output):
    """One JSON object per line, each with a `record` kind; always valid JSON."""

    def message(self, entry: MessageEntry, *, updated: bool, shown: Shown | None) -> Shown:
        # Written field by field (what `dumps` of the whole record writes), so that the
        # blocks and chunks kept as JSON from a first printing join those held since.
        from .store import wire_form

        text, previous_is_text = _content_text(entry, shown)
        blocks = [dumps(_wire(block, wire_form)) for block in entry.content]
        chunks = [dumps({"_meta": chunk.meta}) for chunk in entry.chunks]
        if shown is not None:
            assert shown.blocks_json is not None and shown.chunks_json is not None
            if not entry.replaced_since_release and shown.blocks_json:
                blocks.insert(0, shown.blocks_json)
            if shown.chunks_json:
                chunks.insert(0, shown.chunks_json)
        blocks_json, chunks_json = ", ".join(blocks), ", ".join(chunks)
        fields = {
            "record": dumps("message"),
            "updated": dumps(updated),
            **{key: dumps(value) for key, value in identity_fields(entry).items()},
            "text": dumps(text),
            "content": f"[{blocks_json}]",
            "_meta": dumps(entry.meta),
            "chunks": f"[{chunks_json}]",
        }
        self._write("{" + ", ".join(f"{dumps(key)}: {value}" for key, value in fields.items()))
        self._write("}\n")
        self.stream.flush()
        return Shown(text, previous_is_text, blocks_json, chunks_json)

    def part(self, entry: MessageEntry, text_end: str, previous_is_text: bool) -> Shown:
        from .store import wire_form

        part = super().part(entry, text_end, previous_is_text)
        part.blocks_json = ", ".join(dumps(_wire(block, wire_form)) for block in entry.content)
        part.chunks_json = ", ".join(dumps({"_meta": chunk.meta}) for chunk in entry.chunks)
        return part

    def bad_line(self, number: int, problem: str) -> None:
        self._write(dumps({"record": "badLine", "line": number, "problem": problem}) + "\n")

    def links(self, store: TranscriptStore) -> None:
        for entry in store:
            link = store.link(entry.session_id, entry.message_id)
            assert link is not None  # the entry was just listed
            record = {
                "record": "link",
                "sessionId": entry.session_id,
                "messageId": entry.message_id,
                "direction": entry.direction,
                "link": link_fields(link),
                "conflicts": [
                    {"field": c.field, "kept": c.kept, "rejected": c.rejected}
                    for c in entry.conflicts
                ],
            }
            self._write(dumps(record) + "\n")

    def summary(self, store: TranscriptStore, bad: int, skipped: int, stopped: str | None) -> None:
        record = {
            "record": "summary",
            "version": store.version,
            "messages": len(store),
            "transcripts": len(store.transcripts()),
            "badLines": bad,
            "skipped": skipped,
            "stopped": stopped,
        }
        self._write(dumps(record) + "\n")


# --- presentation ------------------------------------------------------------------------


def dumps(value: Any) -> str:
    """JSON text, never NaN or Infinity: a non-finite number is written as a string."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def block_text(block: Any) -> str:
    """A content block as text: a text block's text, any other block as a placeholder."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind == "resource_link":
        return f"[resource_link {block.uri}]"
    if kind == "resource":
        uri = getattr(block.resource, "uri", None)
        return f"[resource {uri}]" if uri else "[resource]"
    return f"[{kind or 'unknown'}]"


def content_text(blocks: list[Any]) -> str:
    """Blocks joined as streamed: text runs on; a placeholder stands apart by a space."""
    return joined_text(blocks)[0]


def joined_text(
    blocks: list[Any], out: str = "", previous_is_text: bool = True
) -> tuple[str, bool]:
    """`content_text` of the blocks after those that gave `out` (the last of them text or
    not), and whether the last block is text: so that text can be joined in parts."""
    for block in blocks:
        is_text = getattr(block, "type", None) == "text"
        piece = block_text(block)
        boundary = out and piece and not out[-1].isspace() and not piece[0].isspace()
        if boundary and not (is_text and previous_is_text):
            out += " "
        out += piece
        previous_is_text = is_text
    return out, previous_is_text


def participants(entry: MessageEntry) -> str:
    """`To <recipient>` on an outgoing view, `From <sender>` on an incoming one."""
    direction = entry.direction
    if direction == "outgoing":
        return f"To {entry.recipient_session_id or '(recipient unknown)'}"
    if direction == "incoming":
        return f"From {entry.sender_session_id or '(sender unknown)'}"
    if entry.sender_session_id and entry.recipient_session_id:
        return f"From {entry.sender_session_id} to {entry.recipient_session_id}"
    return "(participants unknown)"


def identity_fields(entry: MessageEntry) -> dict[str, Any]:
    """Where a message is, which view it is, and its participant IDs and references."""
    return {
        "sessionId": entry.session_id,
        "messageId": entry.message_id,
        "direction": entry.direction,
        "senderSessionId": entry.sender_session_id,
        "recipientSessionId": entry.recipient_session_id,
        "senderMessageId": entry.sender_message_id,
        "recipientMessageId": entry.recipient_message_id,
    }


def message_fields(entry: MessageEntry) -> dict[str, Any]:
    """A message as it stands: identity, text, content in wire form, `_meta`s."""
    from .store import wire_form

    return {
        **identity_fields(entry),
        "text": content_text(entry.content),
        "content": [_wire(block, wire_form) for block in entry.content],
        "_meta": entry.meta,
        "chunks": [{"_meta": chunk.meta} for chunk in entry.chunks],
    }


def _wire(block: Any, wire_form: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """`wire_form(block)`; for a model whose free-form values (`_meta`, unknown keys) nest
    deeper than pydantic's JSON-mode serializer goes (it stops near 255 levels, while the
    models decode what Python's `json` can parse), the Python-mode dump with its enums
    written as their values: the same JSON."""
    try:
        return wire_form(block)
    except ValueError:  # "Maximum serialization depth exceeded"
        from pydantic import BaseModel

        if not isinstance(block, BaseModel):
            raise
        return cast("dict[str, Any]", _enum_values(block.model_dump()))


def _enum_values(value: Any) -> Any:
    """`value` with each Enum member replaced by its value (Python-mode dumps keep them)."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {key: _enum_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_enum_values(item) for item in value]
    return value


def link_fields(link: Link) -> dict[str, Any]:
    counterpart = link.counterpart
    return {
        "state": link.state,
        "sessionId": counterpart.session_id if counterpart else None,
        "messageId": counterpart.message_id if counterpart else None,
        "reason": link.reason,
    }
