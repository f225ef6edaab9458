#!/usr/bin/env python3
"""The pandas baseline of bench/diagnose.sh: what `kgadvise diagnose` computes per GPU, the usual way
(read_csv + groupby mean/quantiles/max)."""
import sys

import pandas as pd

cols = ["timestamp", "index", "utilization.gpu [%]", "memory.used [MiB]", "memory.total [MiB]",
        "power.draw [W]", "power.limit [W]"]
df = pd.read_csv(sys.argv[1], skipinitialspace=True, usecols=cols)
g = df.groupby("index")
util = g["utilization.gpu [%]"]
summary = pd.DataFrame({
    "samples": util.size(),
    "util_mean": util.mean(),
    "util_p10": util.quantile(0.1),
    "util_p90": util.quantile(0.9),
    "mem_peak_mib": g["memory.used [MiB]"].max(),
    "mem_total_mib": g["memory.total [MiB]"].max(),
    "power_mean_w": g["power.draw [W]"].mean(),
    "first": g["timestamp"].min(),
    "last": g["timestamp"].max(),
})
print(summary.to_string())
