"""Rebuild the SWF excerpts of this folder from the full traces (run from anywhere).

    python make_excerpts.py [TRACES_DIR]      # default: /work/shared/traces

Each excerpt is the original header comment lines, one added ``; Note:`` line saying what
the excerpt is, then the first N job lines, byte for byte. Gzip with mtime 0 and no file
name, so the output is the same at every run.
"""

import gzip
import hashlib
import sys
from pathlib import Path

EXCERPTS = {
    "CTC-SP2-1996-3.1-cln.swf.gz": 5000,
    "SDSC-SP2-1998-4.2-cln.swf.gz": 2000,
}


def make(src: Path, n_jobs: int, dst: Path) -> None:
    raw = src.read_bytes()
    lines = gzip.decompress(raw).decode("ascii").split("\n")
    header, jobs, first_job_line = [], [], None
    for number, line in enumerate(lines, 1):
        if line.strip().startswith(";") and first_job_line is None:
            header.append(line)
        elif line.strip() and not line.strip().startswith(";"):
            first_job_line = first_job_line or number
            jobs.append(line)
            if len(jobs) == n_jobs:
                last = number
                break
    note = (
        f"; Note: adaptsched excerpt: the header and the first {n_jobs} job lines of {src.name}"
        f" (md5 {hashlib.md5(raw).hexdigest()}), original lines {first_job_line}-{last},"
        " one line lower here"
    )
    text = "\n".join(header + [note] + jobs) + "\n"
    dst.write_bytes(gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0))


if __name__ == "__main__":
    traces = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/traces")
    here = Path(__file__).resolve().parent
    for name, n in EXCERPTS.items():
        stem = name[: -len(".swf.gz")]
        dst = here / f"{stem}.first{n}.swf.gz"
        make(traces / name, n, dst)
        print(dst.name, dst.stat().st_size, "bytes")
