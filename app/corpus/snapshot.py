"""A private copy of a data folder: the manifest and exactly the files it declares.

With several worker processes, each loads the data itself, and a worker that dies is
replaced by a new process. Loading from the live data folder would let a replacement serve
whatever is on disk at that moment, next to workers still serving what was there at start.
The server therefore copies the folder once, validates the copy, and points every worker at
it; only a reload makes a new copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from app.corpus.manifest import MANIFEST, load_manifest
from app.corpus.revisions import declared_files
from app.errors import DataError

__all__ = ["snapshot"]


def snapshot(data_dir: Path, target: Path) -> None:
    """Copy `data_dir`'s manifest and the files it declares (the histories' revisions too)
    into the folder `target`.

    A declared file that does not exist is left out, so loading the copy reports it as the
    loader always does. Raises `DataError` for a manifest that cannot be read, or a file
    outside the data folder (a copy cannot keep such a path meaning the same file), or one
    that cannot be read or copied.
    """
    manifest = load_manifest(data_dir)
    root = target.resolve()
    for name in [MANIFEST, *declared_files(data_dir, manifest)]:
        destination = (target / name).resolve()
        if not destination.is_relative_to(root) or destination == root:
            raise DataError(MANIFEST, "", f"every declared file must be inside the data "
                                          f"folder: {name}")
        source = data_dir / name
        try:
            if not source.is_file():
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            # copy2 keeps the modification time: the data version's date (the sitemap's).
            shutil.copy2(source, destination)
        except OSError as exc:  # unreadable (another owner, a name too long): one line
            raise DataError(name, "", f"cannot copy file ({exc.strerror or exc})") from None
