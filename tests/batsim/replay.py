"""Replays batsched's recorded replies (protocol-kth200.jsonl) to campaign's requests.

Usage: replay.py RECORDING ENDPOINT LOG

A REP socket at ENDPOINT answers each request campaign sends with the replies
batsched gave in the recorded session, matched by content rather than by position: the
events campaign has sent so far (type and job) are gathered, and every recorded
request whose events have all been seen is taken, in recorded order, its reply's events
joining this answer. So campaign may group an instant's events into fewer requests than
Batsim did (or more) and still get each decision once, after what it answers. Every
request received is written to LOG (one JSON per line); at SIMULATION_ENDS the script
checks that every recorded reply was used, and exits with status 1 if not.
"""

import collections
import json
import sys

import zmq


def key(event):
    """What identifies an event: its type and the job it is about."""
    data = event.get("data") or {}
    job = data.get("job_id") or data.get("type") or ""
    return (event["type"], job)


def main():
    recording, endpoint, log_path = sys.argv[1:4]
    pairs = []  # (request keys, reply events), in recorded order
    pending = None
    with open(recording) as f:
        for line in f:
            entry = json.loads(line)
            if entry["dir"] == "batsim->sched":
                pending = [key(e) for e in entry["msg"]["events"]]
            else:
                pairs.append((pending, entry["msg"]["events"]))
    seen = collections.Counter()
    used = 0
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REP)
    sock.bind(endpoint)
    with open(log_path, "w") as log:
        while True:
            request = json.loads(sock.recv())
            log.write(json.dumps(request) + "\n")
            for e in request["events"]:
                seen[key(e)] += 1
            answer = []
            while used < len(pairs):
                wanted = collections.Counter(pairs[used][0])
                if any(seen[k] < n for k, n in wanted.items()):
                    break
                seen.subtract(wanted)
                answer.extend(pairs[used][1])
                used += 1
            ended = any(e["type"] == "SIMULATION_ENDS" for e in request["events"])
            sock.send_string(json.dumps({"now": request["now"], "events": answer}))
            if ended:
                break
    sock.close()
    ctx.term()
    if used != len(pairs):
        print(f"only {used} of {len(pairs)} recorded replies were used", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
