"""A tiny scheduler speaking Batsim 4's protocol, for campaign's tests.

Usage: scripted.py MODE ENDPOINT [LOG]

Strict FCFS on the lowest free machines, answering every request (each received
request is written to LOG, one JSON per line, if given). MODE says what else it does:

fcfs          nothing else: the minimal external FCFS (also used to measure the
              protocol's cost; it prints its message count and CPU time to stderr at
              the end);
decide        rejects w0!1 when it is submitted, asks to be called at 40 s when w0!0
              starts, and kills w0!0 when called;

and each of these makes one decision it may not, at the first request with a
submission (or as said):

unknown-job   starts w0!99;
count         starts the first job on one machine fewer than it requests;
outside       starts it on machines beyond the platform;
repeated      names a machine twice in an allocation;
busy          starts the first two jobs on overlapping machines;
twice         starts the first job twice in one reply;
unsubmitted   starts w0!2 before it is submitted;
reject-running starts the first job and rejects it in the same reply;
kill-waiting  kills a job that waits;
call-now      asks to be called at the request's own time;
past-event    dates its decision one second before the request;
past-now      dates its reply one second before the request;
unsupported   sends SET_RESOURCE_STATE;
malformed     answers with text that is not JSON;
exit          prints "bye" to stderr and exits with status 3 instead of answering;
crash         raises an exception instead of answering;
silent        never answers (sleeps);
exit-at-end   answers SIMULATION_ENDS, then exits with status 4;
stall         never starts a job;

and rendezvous (the fourth argument names it) is FCFS that, at SIMULATION_BEGINS,
writes its endpoint to $BATSIM_RENDEZVOUS/NAME and waits until another file is there
(exiting with status 5 after 20 s): two such schedulers finish only if they run at once.

With BATSIM_PIDFILE set, it writes its process id there first.
"""

import json
import os
import sys
import time

import zmq


def interval_set(ids):
    """Machine ids as Batsim's interval-set text."""
    ids = sorted(ids)
    words, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        words.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(words)


def machines(text):
    out = []
    for word in text.split():
        a, _, b = word.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main():
    mode, endpoint = sys.argv[1], sys.argv[2]
    log = open(sys.argv[3], "w") if len(sys.argv) > 3 and mode != "rendezvous" else None
    if os.environ.get("BATSIM_PIDFILE"):
        with open(os.environ["BATSIM_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REP)
    sock.bind(endpoint)
    free, queue, messages = [], [], 0
    cpu = time.process_time()
    misbehaved = False
    while True:
        raw = sock.recv()
        messages += 1
        request = json.loads(raw)
        if log:
            log.write(json.dumps(request) + "\n")
            log.flush()
        now = request["now"]
        out = []
        ended = False
        submitted = False
        for event in request["events"]:
            kind, data = event["type"], event["data"]
            if kind == "SIMULATION_BEGINS":
                free = list(range(data["nb_compute_resources"]))
                if mode == "rendezvous":
                    meet = os.environ["BATSIM_RENDEZVOUS"]
                    with open(os.path.join(meet, sys.argv[3]), "w") as f:
                        f.write(endpoint)
                    deadline = time.time() + 20
                    while len(os.listdir(meet)) < 2:
                        if time.time() > deadline:
                            sys.exit(5)
                        time.sleep(0.01)
            elif kind == "JOB_SUBMITTED":
                submitted = True
                if mode == "decide" and data["job_id"] == "w0!1":
                    out.append({"timestamp": now, "type": "REJECT_JOB",
                                "data": {"job_id": "w0!1"}})
                else:
                    queue.append((data["job_id"], data["job"]["res"]))
            elif kind == "JOB_COMPLETED":
                free.extend(machines(data["alloc"]))
            elif kind == "REQUESTED_CALL" and mode == "decide":
                out.append({"timestamp": now, "type": "KILL_JOB",
                            "data": {"job_ids": ["w0!0"]}})
            elif kind == "SIMULATION_ENDS":
                ended = True
        first = submitted and not misbehaved and mode not in ("fcfs", "decide", "rendezvous")
        if first:
            misbehaved = True
            if mode == "exit":
                print("bye", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "crash":
                raise RuntimeError("boom")
            if mode == "silent":
                time.sleep(120)
            if mode == "malformed":
                sock.send_string("this is not JSON")
                continue
            job, res = queue[0]
            bad = {
                "unknown-job": [("EXECUTE_JOB", {"job_id": "w0!99", "alloc": "0"})],
                "count": [("EXECUTE_JOB", {"job_id": job, "alloc": interval_set(free[:res - 1]) or "0"})],
                "outside": [("EXECUTE_JOB", {"job_id": job,
                             "alloc": interval_set(range(len(free) + 4 - res, len(free) + 4))})],
                "repeated": [("EXECUTE_JOB", {"job_id": job, "alloc": "0 0"})],
                "busy": [("EXECUTE_JOB", {"job_id": queue[0][0], "alloc": "0-1"}),
                         ("EXECUTE_JOB", {"job_id": queue[-1][0], "alloc": "1-2"})],
                "twice": [("EXECUTE_JOB", {"job_id": job, "alloc": interval_set(free[:res])}),
                          ("EXECUTE_JOB", {"job_id": job, "alloc": interval_set(free[res:2 * res])})],
                "unsubmitted": [("EXECUTE_JOB", {"job_id": "w0!2", "alloc": "0-3"})],
                "reject-running": [("EXECUTE_JOB", {"job_id": job, "alloc": interval_set(free[:res])}),
                                   ("REJECT_JOB", {"job_id": job})],
                "kill-waiting": [("KILL_JOB", {"job_ids": [job]})],
                "call-now": [("CALL_ME_LATER", {"timestamp": now})],
                "unsupported": [("SET_RESOURCE_STATE", {"resources": "0", "state": "1"})],
            }.get(mode)
            if bad is not None:
                out = [{"timestamp": now, "type": t, "data": d} for t, d in bad]
                sock.send_string(json.dumps({"now": now, "events": out}))
                continue
            if mode == "past-event":
                out.append({"timestamp": now - 1, "type": "CALL_ME_LATER",
                            "data": {"timestamp": now + 10}})
            if mode == "past-now":
                sock.send_string(json.dumps({"now": now - 1, "events": []}))
                continue
        if mode != "stall":
            while queue and queue[0][1] <= len(free):
                job, res = queue.pop(0)
                free.sort()
                alloc, free = free[:res], free[res:]
                out.append({"timestamp": now, "type": "EXECUTE_JOB",
                            "data": {"job_id": job, "alloc": interval_set(alloc)}})
                if mode == "decide" and job == "w0!0":
                    out.append({"timestamp": now, "type": "CALL_ME_LATER",
                                "data": {"timestamp": 40.0}})
        sock.send_string(json.dumps({"now": now, "events": out}))
        if ended:
            break
    sock.close()
    ctx.term()
    if mode == "fcfs":
        cpu = time.process_time() - cpu
        print(f"messages {messages} cpu_s {cpu}", file=sys.stderr)
    if mode == "exit-at-end":
        sys.exit(4)


if __name__ == "__main__":
    main()
