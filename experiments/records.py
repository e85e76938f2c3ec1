"""Run records of the experiments, kept out of the tree: one ``records.tar.xz`` per experiment.

Each experiment folder (``experiments/<name>/``) keeps its runners, rules and notes as files; the records its runs
wrote (``*.json``, ``*.jsonl``, ``*.log``, under any sub-folder) are packed into ``experiments/<name>/records.tar.xz``
(members sorted by path, times, owners and modes cleared, so packing the same records gives the same bytes).
Every reader goes through this module: a record is read from its plain file when one exists (a run that has just
written it) and else from its experiment's archive.

    python experiments/records.py pack transfer     # fold the plain record files of experiments/transfer into
                                                    # its archive and remove them
    python experiments/records.py list transfer     # the archive's members
    python experiments/records.py cat transfer/results.json
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import sys
import tarfile
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARCHIVE = "records.tar.xz"
SUFFIXES = (".json", ".jsonl", ".log", ".txt")


def _split(path: Path) -> tuple[Path, str]:
    """``(experiment folder, member name)`` of a record path inside ``experiments/``."""
    rel = Path(path).resolve().relative_to(HERE)
    return HERE / rel.parts[0], "/".join(rel.parts[1:])


@cache
def _members(folder: Path) -> dict[str, bytes]:
    archive = folder / ARCHIVE
    if not archive.exists():
        return {}
    with tarfile.open(archive, "r:xz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]


def read_bytes(path: Path | str) -> bytes:
    """A record's bytes: its plain file, else its member of the experiment's archive."""
    path = Path(path)
    if path.exists():
        return path.read_bytes()
    folder, name = _split(path)
    try:
        return _members(folder)[name]
    except KeyError:
        raise FileNotFoundError(f"no record {name!r} in {folder / ARCHIVE} nor as a file: {path}") from None


def read_text(path: Path | str) -> str:
    return read_bytes(path).decode("utf-8")


def read_json(path: Path | str):
    return json.loads(read_text(path))


def read_jsonl(path: Path | str) -> list:
    return [json.loads(line) for line in read_text(path).splitlines() if line.strip()]


def exists(path: Path | str) -> bool:
    path = Path(path)
    if path.exists():
        return True
    folder, name = _split(path)
    return name in _members(folder)


def glob(folder: Path | str, pattern: str) -> list[Path]:
    """Record paths under ``folder`` matching ``pattern`` (plain files and archive members), sorted."""
    folder = Path(folder).resolve()
    exp, prefix = _split(folder / "x")
    prefix = prefix[:-1]  # drop the "x"
    found = {p.resolve() for p in folder.glob(pattern)}
    for name in _members(exp):
        if name.startswith(prefix) and fnmatch.fnmatch(name[len(prefix):], pattern):
            found.add(exp / name)
    return sorted(found)


def pack(name: str) -> Path:
    """Fold the plain record files of ``experiments/<name>`` into its archive (members it holds kept, files
    of the same name replacing them) and remove the files."""
    folder = HERE / name
    members = dict(_members(folder))
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    for p in files:
        members[p.relative_to(folder).as_posix()] = p.read_bytes()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", format=tarfile.PAX_FORMAT) as tar:
        for member in sorted(members):
            info = tarfile.TarInfo(member)
            info.size, info.mtime, info.mode = len(members[member]), 0, 0o644
            tar.addfile(info, io.BytesIO(members[member]))
    (folder / ARCHIVE).write_bytes(buf.getvalue())
    _members.cache_clear()
    for p in files:
        p.unlink()
    for d in sorted((d for d in folder.rglob("*") if d.is_dir()), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    return folder / ARCHIVE


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["pack", "list", "cat"])
    ap.add_argument("what", help="an experiment (pack, list) or experiment/member (cat)")
    a = ap.parse_args(argv)
    if a.action == "pack":
        print(pack(a.what))
    elif a.action == "list":
        print("\n".join(sorted(_members(HERE / a.what))))
    else:
        sys.stdout.write(read_text(HERE / a.what))
    return 0


if __name__ == "__main__":
    sys.exit(main())
