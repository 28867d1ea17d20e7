"""Reads a campaign's runs.parquet with pandas (through pyarrow) and prints, as JSON,
what a researcher's notebook would see: each column's pandas dtype and, for categorical
columns, their categories in order.

    python runs_parquet.py RUNS.parquet
"""

import json
import sys

import pandas as pd


def main():
    df = pd.read_parquet(sys.argv[1])
    out = {"rows": len(df), "dtypes": {}, "categories": {}}
    for name in df.columns:
        dtype = df[name].dtype
        out["dtypes"][name] = str(dtype)
        if isinstance(dtype, pd.CategoricalDtype):
            out["categories"][name] = [str(c) for c in dtype.categories]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
