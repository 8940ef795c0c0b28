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
from collections.abc import Callable, Iterable, Iterator
from enum import Enum
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
from acp_schema.cli_output import diagnostic, printable
from acp_schema.cli_output import shown as one_line

from .show_input import add_arguments, show_input
from .show_spill import Record, Shown, Spill

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
    add_arguments(show)  # LOG.jsonl or -, --protocol
    show.add_argument("--json", action="store_true", help="print JSON Lines, one record per line")
    show.set_defaults(func=_show)


def _show(args: argparse.Namespace) -> int:
    from .store import NotSessionUpdateError, TranscriptStore, UpdateDecodeError

    given = show_input(args)
    if isinstance(given, str):
        return command_error("transcript show", given)
    path = one_line(given.shown)
    try:
        log = open_lines(given.source)
    except OSError as error:
        return _unreadable(path, error)
    store = TranscriptStore(given.protocol)
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
                diagnostic(f"{path}:{number}: {error}")
                output.bad_line(number, str(error))
                continue
            if entry is not None:
                progress.touched(entry, len(line))
    progress.finish()
    output.links(store)
    if stopped is not None:
        diagnostic(f"acp-schema transcript show: {stopped}; reading stopped")
    output.summary(store, bad, skipped, stopped)
    if stopped is not None:
        return EXIT_UNUSABLE
    return EXIT_PROBLEMS if bad else EXIT_OK


def _unreadable(path: str, error: OSError) -> int:
    return command_error("transcript show", f"cannot read {path}: {os_reason(error)}")


class Progress:
    """When to print a session message: once its transcript moves on, or at the end.

    A transcript has at most one open message: the one its latest session-message update
    was for. When an update for another message of that transcript arrives, the open one
    is printed. A message that changes after it was printed is printed once more at the
    end, marked as updated; so every message is printed at most twice.

    Once printed, a message's content is kept only as far as its second printing could
    need it (`Shown`: its text, or its JSON), and out of memory (`Spill`); the store lets
    go of the blocks. A message still open (or printed and growing again) whose updates
    pass `PARK_BYTES` has what it holds spilled too, and is printed from the spill part by
    part. So memory grows with the number of messages, not with their content.
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
        self.parked: dict[MessageEntry, int] = {}  # open messages spilled before printing
        self.held: dict[MessageEntry, int] = {}  # bytes of updates since the last spill
        self.spill = Spill()

    def touched(self, entry: MessageEntry, size: int = 0) -> None:
        """`entry` was updated by a line of `size` bytes."""
        refreshed = self.refreshing.get(entry.session_id)
        if refreshed is not None and refreshed is not entry:
            del self.refreshing[entry.session_id]
            self._spill_since(refreshed)
        if entry in self.printed:
            self.changed[entry] = None
            self.refreshing[entry.session_id] = entry
            if self._grown(entry, size):
                self._spill_since(entry)
            return
        current = self.open.get(entry.session_id)
        if current is not entry:
            if current is not None:
                self._print(current)
            self.open[entry.session_id] = entry
        if self._grown(entry, size):
            self.parked[entry] = self._spill_part(entry, self.parked.get(entry))

    def _grown(self, entry: MessageEntry, size: int) -> bool:
        """Whether `entry` took more than `PARK_BYTES` of updates since its last spill."""
        held = self.held.get(entry, 0) + size
        self.held[entry] = 0 if held > PARK_BYTES else held
        return held > PARK_BYTES

    def _print(self, entry: MessageEntry) -> None:
        self.held.pop(entry, None)
        parked = self.parked.pop(entry, None)
        if parked is None:
            shown = self.output.message(entry, updated=False, shown=None)
            self.printed[entry] = self.spill.put(shown, previous=None, replaced=True)
            self.store.release_content(entry)
            return
        where = self._spill_part(entry, parked)
        self._stream(entry, updated=False, where=where)
        self.printed[entry] = where

    def _stream(self, entry: MessageEntry, *, updated: bool, where: int) -> None:
        """Print `entry` from its spilled records, the latest at `where`."""
        self.output.streamed(entry, updated=updated, parts=lambda: self.spill.parts(where))

    def _spill_part(self, entry: MessageEntry, last: int | None) -> int:
        """Spill what `entry` holds as a record after `last` (None: its first), let the
        store go of it, and return where the record is."""
        replaced = last is None or entry.replaced_since_release
        text_end, previous_is_text = ("", True) if replaced else self.spill.tail(last or 0)
        part = self.output.part(entry, text_end, previous_is_text)
        where = self.spill.put(part, previous=last, replaced=replaced)
        self.store.release_content(entry)
        return where

    def _spill_since(self, entry: MessageEntry) -> None:
        """Spill what a printed message received since its last record, as one more record
        chained to it (each part written once, however often the message comes back)."""
        self.held.pop(entry, None)
        if not (entry.replaced_since_release or entry.content or entry.chunks):
            return  # only identity or `_meta` came: the store holds those
        self.printed[entry] = self._spill_part(entry, self.printed[entry])

    def finish(self) -> None:
        for entry in self.open.values():  # not printed again: nothing more is kept
            parked = self.parked.pop(entry, None)
            if parked is None:
                self.output.message(entry, updated=False, shown=None)
                continue
            self._stream(entry, updated=False, where=self._spill_part(entry, parked))
        self.open.clear()
        for entry in self.changed:
            self._spill_since(entry)
            self._stream(entry, updated=True, where=self.printed[entry])
            self.store.release_content(entry)  # the last printing: what is left is links
        self.spill.close()


# An open message whose updates pass this many bytes is spilled before it is printed.
PARK_BYTES = 4 * 1024 * 1024
Parts = Callable[[], Iterator[tuple[bool, Record]]]


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

    def streamed(self, entry: MessageEntry, *, updated: bool, parts: Parts) -> None:
        """Print a message record whose content is in the spill: `parts()` gives its
        records, oldest first, each with whether its text and blocks count; never
        joined in memory."""
        raise NotImplementedError

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

    def streamed(self, entry: MessageEntry, *, updated: bool, parts: Parts) -> None:
        mark = "  (changed after it was shown)" if updated else ""
        self._write(one_line(f"{entry.session_id}/{entry.message_id}: {participants(entry)}{mark}"))
        self._write("\n")
        started = False
        for counts, record in parts():
            if counts and record.text:
                if not started:
                    self._write("      ")
                    started = True
                self._write(printable(record.text).replace("\n", "\n      "))
        self._write("\n" if started else "      (no content)\n")
        self.stream.flush()

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

    def streamed(self, entry: MessageEntry, *, updated: bool, parts: Parts) -> None:
        # The fields and their order of `message`, each array and the text in pieces.
        head = {"record": "message", "updated": updated, **identity_fields(entry)}
        self._write("{" + ", ".join(f"{dumps(key)}: {dumps(value)}" for key, value in head.items()))
        self._write(', "text": "')
        for counts, record in parts():
            if counts and record.text:
                self._write(dumps(record.text)[1:-1])
        self._write('", "content": [')
        self._items(record.blocks_json for counts, record in parts() if counts)
        self._write(f'], "_meta": {dumps(entry.meta)}, "chunks": [')
        self._items(record.chunks_json for _, record in parts())
        self._write("]}\n")
        self.stream.flush()

    def _items(self, pieces: Iterable[str | None]) -> None:
        first = True
        for piece in pieces:
            if piece:
                self._write(piece if first else f", {piece}")
                first = False

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
