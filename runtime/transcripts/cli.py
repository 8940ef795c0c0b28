"""``acp-schema transcript show``: the session messages of a recorded ACP log, per transcript.

The log holds one JSON-RPC message per line, as an Agent sent them. Every `session/update`
goes through `acp_schema.transcripts.TranscriptStore`; other messages are skipped; a line
that does not decode is reported on stderr with its number and does not stop the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, usage_handler

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers

    from .store import MessageEntry, TranscriptStore, Version


def register(commands: Subparsers) -> None:
    """Add the `transcript` command group to the `acp-schema` parser."""
    transcript = commands.add_parser("transcript", help="inspect session-message transcripts")
    transcript_commands = transcript.add_subparsers(dest="transcript_command", metavar="COMMAND")

    transcript.set_defaults(func=usage_handler(transcript))

    show = transcript_commands.add_parser(
        "show",
        help="print the session messages of a JSON-RPC log and how their views link",
        description="Read a log of JSON-RPC messages (one per line, as an Agent sent them), "
        "apply every session/update, and print each transcript's session messages with "
        "their participants, content and link state. Lines that do not decode are reported "
        "on stderr with their number. Exit 0 if every line was fine, 1 if some were bad, "
        "2 if the log cannot be read.",
    )
    show.add_argument("log", type=Path, metavar="LOG.jsonl", help="the recorded log")
    show.add_argument(
        "--version",
        dest="protocol_version",
        choices=("v1", "v2"),
        default="v2",
        help="ACP protocol version of the log (default: v2)",
    )
    show.add_argument("--json", action="store_true", help="print a machine-readable document")
    show.set_defaults(func=_show)


@dataclass
class LoadedLog:
    """A log applied to a store: what was kept, skipped and refused."""

    store: TranscriptStore
    bad_lines: list[tuple[int, str]] = field(default_factory=list)
    skipped: int = 0  # well-formed JSON-RPC messages other than session/update


def load_log(path: Path, version: Version) -> LoadedLog:
    """Apply every line of the log; raises OSError if the file cannot be read."""
    from .store import NotSessionUpdateError, TranscriptStore, UpdateDecodeError

    loaded = LoadedLog(TranscriptStore(version))
    with path.open("rb") as log:
        for number, line in enumerate(log, start=1):
            if not line.strip():
                continue
            try:
                loaded.store.apply(line)
            except NotSessionUpdateError:
                loaded.skipped += 1
            except UpdateDecodeError as error:
                loaded.bad_lines.append((number, str(error)))
    return loaded


def _show(args: argparse.Namespace) -> int:
    path: Path = args.log
    try:
        loaded = load_log(path, args.protocol_version)
    except OSError as error:
        print(f"acp-schema transcript show: cannot read {path}: {error.strerror}", file=sys.stderr)
        return EXIT_UNUSABLE
    for number, problem in loaded.bad_lines:
        print(f"{path}:{number}: {problem}", file=sys.stderr)
    if args.json:
        print(json.dumps(document(loaded), indent=2, ensure_ascii=False))
    else:
        print(render_text(loaded), end="")
    return EXIT_PROBLEMS if loaded.bad_lines else EXIT_OK


# --- presentation ------------------------------------------------------------------------


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
    out = ""
    previous_is_text = True
    for block in blocks:
        is_text = getattr(block, "type", None) == "text"
        piece = block_text(block)
        boundary = out and piece and not out[-1].isspace() and not piece[0].isspace()
        if boundary and not (is_text and previous_is_text):
            out += " "
        out += piece
        previous_is_text = is_text
    return out


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


def render_text(loaded: LoadedLog) -> str:
    store = loaded.store
    lines: list[str] = []
    for session_id in store.transcripts():
        entries = store.entries(session_id)
        count = f"{len(entries)} session message{'s' if len(entries) != 1 else ''}"
        lines.append(f"Transcript {session_id} ({count})")
        for entry in entries:
            link = store.link(session_id, entry.message_id)
            lines.append(f"  {entry.message_id}: {participants(entry)}  [{link}]")
            text = content_text(entry.content)
            lines.extend(f"      {line}" for line in (text.splitlines() or ["(no content)"]))
            lines.extend(f"      ! {conflict}" for conflict in entry.conflicts)
    if not lines:
        lines.append("No session messages.")
    summary = f"{len(loaded.bad_lines)} bad line(s), {loaded.skipped} other message(s) skipped"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def document(loaded: LoadedLog) -> dict[str, Any]:
    """The JSON form: every transcript, entry, link, and the bad lines."""
    store = loaded.store
    transcripts = []
    for session_id in store.transcripts():
        messages = []
        for entry in store.entries(session_id):
            link = store.link(session_id, entry.message_id)
            assert link is not None  # the entry was just listed
            counterpart = link.counterpart
            messages.append(
                {
                    "messageId": entry.message_id,
                    "direction": entry.direction,
                    "senderSessionId": entry.sender_session_id,
                    "recipientSessionId": entry.recipient_session_id,
                    "senderMessageId": entry.sender_message_id,
                    "recipientMessageId": entry.recipient_message_id,
                    "text": content_text(entry.content),
                    "content": [block.model_dump(mode="json") for block in entry.content],
                    "_meta": entry.meta,
                    "chunks": [{"_meta": chunk.meta} for chunk in entry.chunks],
                    "conflicts": [
                        {"field": c.field, "kept": c.kept, "rejected": c.rejected}
                        for c in entry.conflicts
                    ],
                    "link": {
                        "state": link.state,
                        "sessionId": counterpart.session_id if counterpart else None,
                        "messageId": counterpart.message_id if counterpart else None,
                        "reason": link.reason,
                    },
                }
            )
        transcripts.append({"sessionId": session_id, "messages": messages})
    return {
        "version": store.version,
        "transcripts": transcripts,
        "badLines": [{"line": n, "problem": p} for n, p in loaded.bad_lines],
        "skipped": loaded.skipped,
    }
