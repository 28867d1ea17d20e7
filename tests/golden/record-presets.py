#!/usr/bin/env python3
"""Records tests/golden/presets.tsv: the digest of every job's start under `easy`,
`easy` with a prediction window of 2 and `conservative`, on the eight archive traces
under both walltime policies (see tests/integration/presets.rs).

    CAMPAIGN_TRACE_DIR=../shared/traces python3 tests/golden/record-presets.py \
        target/release/campaign > presets.tsv

Each line: trace, walltime, scheduler, jobs that ran, SHA-256 of the lines
"job_id,start_ms" of `--jobs-out` in file order, and the run's wall-clock time as a
comment.
"""
import csv
import hashlib
import os
import subprocess
import sys
import tempfile
import time

TRACES = [
    "CEA-Curie-2011-2.1-cln",
    "CTC-SP2-1996-3.1-cln",
    "HPC2N-2002-2.2-cln",
    "KTH-SP2-1996-2.1-cln",
    "LANL-CM5-1994-4.1-cln",
    "SDSC-BLUE-2000-4.2-cln",
    "SDSC-DS-2004-2.1-cln",
    "SDSC-SP2-1998-4.2-cln",
]
SCHEDULERS = [
    ("easy", "easy"),
    ("easy-window-2", '{ kind = "easy", prediction_window = 2 }'),
    ("conservative", "conservative"),
]


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "jobs.csv")
        for trace in TRACES:
            for walltime in ["kill", "run"]:
                for name, scheduler in SCHEDULERS:
                    t0 = time.time()
                    subprocess.run(
                        [binary, "simulate", trace, "--scheduler", scheduler,
                         "--walltime", walltime, "--jobs-out", out],
                        check=True, stdout=subprocess.DEVNULL)
                    seconds = time.time() - t0
                    digest, jobs = hashlib.sha256(), 0
                    with open(out) as f:
                        for row in csv.DictReader(f):
                            ms = round(float(row["starting_time"]) * 1000)
                            digest.update(f'{row["job_id"]},{ms}\n'.encode())
                            jobs += 1
                    print(f"{trace}\t{walltime}\t{name}\t{jobs}\t{digest.hexdigest()}"
                          f"\t# {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
