"""Reads a campaign's runs.parquet and runs.csv as a notebook would, with no dtype
argument, regex or cast, and prints as JSON what it sees:

- "pandas_parquet" and "pandas_csv": each column's pandas dtype (pd.read_parquet,
  pd.read_csv with their defaults);
- "polars_parquet" and "polars_csv": each column's polars type (pl.read_parquet,
  pl.read_csv with their defaults), and "polars_categories": the categories of the
  parquet file's enum columns, in order;
- "duckdb": each column's DuckDB type (DESCRIBE of the parquet file) and the rows in
  `ORDER BY run_index`, as Python values (None for NULL);
- "plot": the x values and the series of a sweep plot made from the parquet file with
  pandas alone: mean wait per (scheduler, load), sorted by load, the schedulers in the
  order of their first run.

    python sweep.py RUNS.parquet RUNS.csv X SERIES METRIC
"""

import json
import math
import sys

import duckdb
import pandas as pd
import polars as pl


def plain(v):
    """A JSON-able Python value: None for NULL/NaN/NA."""
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


def main():
    parquet, csv, x, series, metric = sys.argv[1:6]
    out = {}
    df = pd.read_parquet(parquet)
    out["pandas_parquet"] = {c: str(df[c].dtype) for c in df.columns}
    out["pandas_csv"] = {c: str(t) for c, t in pd.read_csv(csv).dtypes.items()}
    out["pandas_study"] = [plain(v) for v in df["study"]]

    pf = pl.read_parquet(parquet)
    out["polars_parquet"] = {c: str(t) for c, t in pf.schema.items()}
    out["polars_csv"] = {c: str(t) for c, t in pl.read_csv(csv).schema.items()}
    out["polars_categories"] = {
        c: t.categories.to_list() for c, t in pf.schema.items() if isinstance(t, pl.Enum)
    }

    con = duckdb.connect()
    described = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{parquet}')").fetchall()
    out["duckdb_types"] = {row[0]: row[1] for row in described}
    cursor = con.execute(f"SELECT * FROM read_parquet('{parquet}') ORDER BY run_index")
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, map(plain, r))) for r in cursor.fetchall()]
    out["duckdb_rows"] = rows
    # The same through DuckDB's pandas bridge, as a notebook would plot it.
    via = con.execute(f"SELECT * FROM read_parquet('{parquet}') ORDER BY run_index").df()
    out["duckdb_pandas"] = {c: str(via[c].dtype) for c in via.columns}

    # A sweep plot's data, from the parquet file with pandas alone.
    ok = df[df[x].notna()]
    series_order = list(dict.fromkeys(ok.sort_values("run_index")[series].astype(str)))
    plot = {}
    for name in series_order:
        part = ok[ok[series].astype(str) == name]
        means = part.groupby(x)[metric].mean().sort_index()
        plot[name] = {"x": [plain(v) for v in means.index], "y": [plain(v) for v in means]}
    out["plot"] = {"series": series_order, "lines": plot}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
