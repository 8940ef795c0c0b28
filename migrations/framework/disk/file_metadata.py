"""What a migrated file carries besides its bytes, carried over to the file that replaces
it: its extended attributes (`os.listxattr` / `os.getxattr`, where the platform has them).

POSIX ACLs are extended attributes on Linux (`system.posix_acl_access`), and so are file
capabilities (`security.capability`), SELinux labels and `user.*` attributes: all are
copied the same way. Owner, group and mode bits (setuid and setgid included) are set by
the writer (`files._carry_over`). Where an attribute cannot be set on a new file (no
permission for its namespace, a file system without them), the writer overwrites the
file in place instead, whose inode keeps them; what the kernel strips on such a write
(file capabilities) is set again after it, where allowed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Kept:
    """The extended attributes of a file, by name."""

    attributes: dict[str, bytes] = field(default_factory=dict)


def kept_by(path: Path) -> Kept:
    """The extended attributes of the file at `path` (none where it has or can have none)."""
    try:
        names = os.listxattr(path)
    except (OSError, AttributeError):  # not supported here
        return Kept()
    attributes: dict[str, bytes] = {}
    for name in names:
        try:
            attributes[name] = os.getxattr(path, name)
        except OSError:  # removed meanwhile, or not readable: nothing to carry
            continue
    return Kept(attributes)


def apply_kept(path: Path, kept: Kept, *, remove_others: bool = True) -> bool:
    """Give the file at `path` the attributes `kept` holds, and (`remove_others`) none
    other (a new file may inherit a directory's default ACL); False if any of that is not
    allowed or not supported."""
    try:
        present = set(os.listxattr(path))
    except AttributeError:  # no extended attributes on this platform
        return not kept.attributes
    except OSError:
        return not kept.attributes
    ok = True
    for name, value in kept.attributes.items():
        try:
            if name not in present or os.getxattr(path, name) != value:
                os.setxattr(path, name, value)
        except OSError:
            ok = False
    if remove_others:
        for name in present - set(kept.attributes):
            try:
                os.removexattr(path, name)
            except OSError:
                ok = False
    return ok
