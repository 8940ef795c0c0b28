"""`transcript show` and a message still open: once its updates pass `PARK_BYTES`, what it
holds goes to the spill and it is printed from there part by part, so one huge message
(350 MB of chunks: MemoryError before) takes bounded memory, and the output is the same
bytes as a show that keeps everything.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from acp_schema.cli import main
from acp_schema.transcripts import Version, cli
from tests.test_transcript_cli import write_log
from tests.test_transcript_show_memory import keeping_everything, varied_log


@pytest.mark.parametrize("park", [1, 300, 5000])
@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("as_json", [False, True])
def test_parked_messages_print_what_keeping_everything_prints(
    park: int,
    version: Version,
    as_json: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = varied_log(11)
    path = write_log(tmp_path, lines)
    parked: list[int] = []
    real = cli.Progress._spill_part

    def counting(progress: cli.Progress, entry: object, last: int | None) -> int:
        parked.append(1)
        return real(progress, entry, last)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "PARK_BYTES", park)
    monkeypatch.setattr(cli.Progress, "_spill_part", counting)
    code = main(["transcript", "show", str(path), "--version", version, *(["--json"] * as_json)])
    assert code in (0, 1)
    assert capsys.readouterr().out == keeping_everything(lines, version, as_json)
    assert len(parked) > 100  # open messages were parked, many times


def _one_message(path: Path, chunks: int, size: int) -> None:
    text = "y" * (size - 1) + "\n"
    with path.open("w") as log:
        for index in range(chunks):
            update = {
                "sessionUpdate": "session_message_chunk",
                "messageId": "m",
                "content": {"type": "text", "text": text},
            }
            if index % 7 == 3:
                update["content"] = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
            params = {"sessionId": "A", "update": update}
            log.write(json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}))
            log.write("\n")


def _peak_kb(args: list[str]) -> tuple[int, int]:
    """(peak RSS in KB, bytes printed) of `acp-schema ARGS` in a child of its own."""
    code = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, len(done.stdout))\n"
    )
    command = [sys.executable, "-m", "acp_schema", *args]
    out = subprocess.run(
        [sys.executable, "-c", code, *command], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]), int(out[1])


@pytest.mark.skipif(not hasattr(resource, "getrusage"), reason="needs getrusage")
@pytest.mark.parametrize("as_json", [False, True])
def test_one_huge_open_message_takes_bounded_memory(as_json: bool, tmp_path: Path) -> None:
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    _one_message(small, 8, 1024 * 1024)
    _one_message(large, 96, 1024 * 1024)  # 96 MB in one message, never closed
    flags = ["--json"] if as_json else []
    small_peak, small_out = _peak_kb(["transcript", "show", *flags, str(small)])
    large_peak, large_out = _peak_kb(["transcript", "show", *flags, str(large)])
    assert large_out > 10 * small_out  # all of it was printed
    # Holding the message grows memory by its size (84 MB more here) and more; parked,
    # by the records being written and read back: a few MB.
    assert large_peak - small_peak < 40 * 1024, (small_peak, large_peak)
