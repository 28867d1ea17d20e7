#!/usr/bin/env python3
"""Inputs for mini_batsim.cpp from the recorded Batsim files, and the comparison of
its output with them. See README.md next to this file.

  prepare.py session SESSION.jsonl DIR     recorded requests/replies and the jobs
  prepare.py oracle SCHEDULE.csv.gz DIR    a recorded per-job schedule
  prepare.py platform cluster BW FILE      N hosts + master, zero-latency links of BW
  prepare.py platform noroutes FILE        N hosts + master, no links between hosts
(N: the environment's HOSTS, 100 when unset; SDSC-SP2's recordings need 128)
  prepare.py compare SCHEDULE.csv.gz OUT   identical starts/finishes (6 decimals)
"""
import collections
import csv
import gzip
import json
import os
import sys


def session(path, out):
    rows = [json.loads(line) for line in open(path)]
    begins = rows[0]["msg"]["events"][0]["data"]
    profiles = begins["profiles"]["w0"]
    jobs, requests, replies = {}, [], []
    for row in rows:
        msg = row["msg"]
        if row["dir"] == "batsim->sched":
            events = []
            for e in msg["events"]:
                data = e.get("data", {})
                if e["type"] == "JOB_SUBMITTED":
                    j = data["job"]
                    jobs[j["id"]] = (j["subtime"], j["walltime"], profiles[j["profile"]]["cpu"])
                name = data["type"] if e["type"] == "NOTIFY" else data.get("job_id", "-")
                events.append(f"{e['type']}:{name}")
            requests.append(" ".join(["%.17g" % msg["now"]] + events))
        else:
            lines = []
            for e in msg["events"]:
                if e["type"] != "EXECUTE_JOB":
                    sys.exit(f"unexpected decision {e['type']}")
                d = e["data"]
                lines.append(f"{e['timestamp']!r} {d['job_id']} {d['alloc'].replace(' ', ',')}")
            replies.append("\n".join([f"{msg['now']!r} {len(lines)}"] + lines))
    order = sorted(jobs.items(), key=lambda kv: (kv[1][0], int(kv[0].split("!")[1])))
    with open(f"{out}/jobs.txt", "w") as f:
        for job_id, (submit, walltime, cpu) in order:
            f.write(f"{job_id} {submit!r} {walltime!r} {cpu!r} -1 -\n")
    open(f"{out}/requests.txt", "w").write("\n".join(requests) + "\n")
    open(f"{out}/replies.txt", "w").write("\n".join(replies) + "\n")


def oracle(path, out):
    rows = list(csv.DictReader(gzip.open(path, "rt")))
    rows.sort(key=lambda r: (float(r["submission_time"]), int(r["job_id"])))
    with open(f"{out}/jobs.txt", "w") as f:
        for r in rows:
            run = round(float(r["finish_time"]) - float(r["starting_time"]))
            f.write(
                f"{r['job_id']} {float(r['submission_time'])!r} {float(r['requested_time'])!r} "
                f"{run * 1e9!r} {float(r['starting_time'])!r} {r['allocated_resources'].replace(' ', ',')}\n"
            )


def platform(kind, args):
    n = int(os.environ.get("HOSTS", "100"))
    hosts = [f"host{i}" for i in range(n)]
    lines = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
             '<platform version="4.1">', '<zone id="AS0" routing="Full">']
    if kind == "cluster":
        bw, path = args
        for cid, prefix, radical in (("compute", "host", f"0-{n - 1}"), ("head", "master_host", "0-0")):
            lines.append(f'  <cluster id="{cid}" prefix="{prefix}" suffix="" radical="{radical}" speed="1Gf"'
                         f' bw="{bw}" lat="0us" bb_bw="2.25GBps" bb_lat="0us"/>')
        lines.append('  <link id="backbone" bandwidth="1.25GBps" latency="0us"/>')
        lines.append('  <zoneRoute src="compute" dst="head" gw_src="hostcompute_router"'
                     ' gw_dst="master_hosthead_router"><link_ctn id="backbone"/></zoneRoute>')
    else:
        (path,) = args
        lines += [f'  <host id="{h}" speed="1Gf"/>' for h in hosts + ["master_host"]]
    lines += ["</zone>", "</platform>"]
    open(path, "w").write("\n".join(lines) + "\n")


def compare(path, out):
    recorded = {r["job_id"]: r for r in csv.DictReader(gzip.open(path, "rt"))}
    same_start = same_finish = n = 0
    micros = collections.Counter()
    for line in open(out):
        job_id, start, finish = line.split()
        r = recorded[job_id]
        n += 1
        same_start += r["starting_time"] == start
        same_finish += r["finish_time"] == finish
        micros[finish.split(".")[1]] += 1
    recorded_micros = collections.Counter(r["finish_time"].split(".")[1] for r in recorded.values())
    print(f"jobs {n}: identical starts {same_start}, identical finishes {same_finish}")
    print("finish microseconds, harness: ", micros.most_common(3))
    print("finish microseconds, recorded:", recorded_micros.most_common(3))


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "session":
        session(*sys.argv[2:])
    elif what == "oracle":
        oracle(*sys.argv[2:])
    elif what == "platform":
        platform(sys.argv[2], sys.argv[3:])
    elif what == "compare":
        compare(*sys.argv[2:])
    else:
        sys.exit(__doc__)
