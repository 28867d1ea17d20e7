"""Reads `campaign simulate --jobs-out` with evalys, unchanged, and checks that evalys's
metrics equal campaign's.

    python check.py JOBS.csv REPORT.json [OUT_DIR]

JOBS.csv is the `--jobs-out` file, REPORT.json what the same `campaign simulate ...
--format json` printed. The script loads the CSV with `evalys.jobset.JobSet.from_csv`
(no option, no edit), computes with evalys's own functions the mean waiting time
(`metrics.cumulative_waiting_time`), the makespan (the span of evalys's queue and
utilisation series), the utilisation (the area under evalys's utilisation series) and
evalys's `mean_utilisation`, compares them with the report's metrics, checks
independently from the parsed node sets that no node is held by two jobs at once, and
given OUT_DIR, draws evalys's plots, among them its Gantt chart and its detailed jobset
plot (which reads `workload_name`), to PNG files in OUT_DIR with matplotlib's Agg backend (see the end of `main`). It prints every value and exits
with status 1 on the first disagreement.

Tolerance: relative 1e-9. campaign's times are whole milliseconds and evalys rounds to
6 decimals, so both sides hold the same numbers; only the order of floating-point
summation differs.
"""

import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")

import evalys  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from evalys import metrics  # noqa: E402
from evalys.jobset import JobSet  # noqa: E402
from evalys.visu import core  # noqa: E402
from evalys.visu.gantt import GanttVisualization  # noqa: E402

REL_TOL = 1e-9
WEEK = 7 * 86_400


class Mismatch(Exception):
    pass


def same(name, evalys_value, ours):
    """Prints both values and fails unless they agree within REL_TOL."""
    evalys_value, ours = float(evalys_value), float(ours)
    ok = math.isclose(evalys_value, ours, rel_tol=REL_TOL, abs_tol=0.0)
    verdict = "ok" if ok else "DIFFERENT"
    print(f"{name:<26} evalys {evalys_value!r:<20} campaign {ours!r:<20} {verdict}")
    if not ok:
        raise Mismatch(f"{name}: evalys {evalys_value!r} != campaign {ours!r}")


def require(condition, message):
    if not condition:
        raise Mismatch(message)


def exclusive_nodes(df):
    """No node is held by two jobs at the same time (half-open [start, finish)),
    checked from evalys's parsed `allocated_resources`. Returns the highest node id."""
    holders = {}
    for start, finish, nodes in zip(df.starting_time, df.finish_time, df.allocated_resources):
        if finish > start:
            for node in nodes:
                holders.setdefault(node, []).append((start, finish))
    for node, spans in holders.items():
        spans.sort()
        for (_, end), (next_start, _) in zip(spans, spans[1:]):
            require(next_start >= end, f"node {node} held by two jobs at time {next_start}")
    return max(holders)


def main(csv_path, report_path, out_dir=None):
    with open(report_path) as f:
        report = json.load(f)
    ours = report["metrics"]
    nodes = report["platform"]["simulated"]["nodes"]
    name = report["trace"]["name"]
    print(f"evalys {evalys.__version__}, pandas {pd.__version__}, numpy {np.__version__}, "
          f"matplotlib {matplotlib.__version__}")

    js = JobSet.from_csv(csv_path)
    df = js.df
    # The column after Batsim's: the job's user, which evalys leaves alone.
    raw = pd.read_csv(csv_path)
    require(list(raw.columns)[-1] == "user_id" and raw.user_id.notna().all(),
            f"no user_id column after Batsim's: {list(raw.columns)}")
    jobs = len(df)
    ran = ours["completed"] + ours["killed"]
    print(f"jobs: {jobs} rows, campaign ran {ran}, rejected {ours['rejected']}")
    require(jobs == ran, f"{jobs} rows for {ran} jobs that ran")
    require(df.workload_name.nunique() == 1 and df.workload_name.iloc[0] == name,
            f"workload_name {df.workload_name.unique()!r} is not the trace's name")
    # evalys's node count (from the lowest and highest allocated id) and each job's
    # (the size of its node set) against the platform and the requests.
    require(js.MaxProcs == nodes, f"evalys sees {js.MaxProcs} nodes, the platform has {nodes}")
    require((df.proc_alloc == df.requested_number_of_resources).all(),
            "a job's node set is not its requested size")
    require(exclusive_nodes(df) == nodes - 1, "node ids do not span the platform")
    for column in ["submission_time", "starting_time", "execution_time", "finish_time",
                   "waiting_time", "turnaround_time"]:
        require(df[column].notna().all(), f"{column} has missing values")

    # Mean waiting time from evalys's cumulative waiting time, which must stay finite.
    cwt = metrics.cumulative_waiting_time(df)
    require(cwt.notna().all(), "evalys's cumulative waiting time has NaN")
    same("waiting time, mean (s)", cwt.iloc[-1] / jobs, ours["wait_mean_s"])
    same("waiting time, max (s)", df.waiting_time.max(), ours["wait_max_s"])

    # Makespan: from the first submission (evalys's queue series starts there) to the
    # last end (its utilisation series ends there).
    utilisation = js.utilisation
    queue = js.queue
    makespan = utilisation.index.max() - queue.index.min()
    same("makespan (s)", makespan, ours["makespan_s"])

    # Utilisation: the area under evalys's utilisation (busy nodes) series is the busy
    # node-time; campaign divides it by nodes × makespan.
    require(utilisation.load.max() <= nodes, f"evalys sees {utilisation.load.max()} busy nodes")
    busy = utilisation.area.sum()
    same("utilization", busy / (nodes * makespan), ours["utilization"])
    # evalys's own mean utilisation averages busy nodes from the first start to the
    # last end.
    span = utilisation.index.max() - utilisation.index.min()
    same("mean_utilisation (nodes)", js.mean_utilisation(),
         ours["utilization"] * nodes * ours["makespan_s"] / span)
    same("turnaround, mean (s)", df.turnaround_time.mean(), ours["turnaround_mean_s"])
    if out_dir is not None:
        plot(js, name, out_dir)


def plot(js, name, out_dir):
    """Draws with evalys (matplotlib's Agg backend, PNG files in `out_dir`) the
    utilisation and queue over the whole trace, and the Gantt chart and the detailed
    jobset plot (utilisation, queue, job details and the legacy Gantt chart, which
    groups jobs by workload_name!job_id) of the jobs started in the first week: a Gantt
    chart of all the jobs of a trace takes minutes to draw and cannot be read."""
    df = js.df
    drawn = []
    js.plot(title=f"{name}: utilisation and queue")
    drawn.append(save(plt.gcf(), out_dir, "load.png"))
    first = df.submission_time.min()
    week = JobSet(df[df.starting_time < first + WEEK].copy())
    print(f"first week: {len(week.df)} jobs on {week.MaxProcs} nodes")
    layout = core.SimpleLayout(wtitle="Gantt chart")
    gantt = layout.inject(GanttVisualization, spskey="all", title=f"{name}, first week")
    gantt.build(week)
    drawn.append(save(layout.fig, out_dir, "gantt.png"))
    week.plot(with_details=True, title=f"{name}, first week")
    drawn.append(save(plt.gcf(), out_dir, "details.png"))
    for path in drawn:
        with open(path, "rb") as f:
            require(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG file")
        print(f"drew {path}")


def save(fig, out_dir, file_name):
    path = os.path.join(out_dir, file_name)
    fig.savefig(path)
    plt.close(fig)
    return path


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    try:
        main(*sys.argv[1:])
    except Mismatch as e:
        print(f"evalys disagrees with campaign: {e}", file=sys.stderr)
        sys.exit(1)
