#!/usr/bin/env python3
"""Writes a synthetic 2-GPU `nvidia-smi --query-gpu=... --format=csv,nounits -l 1` log of about SIZE bytes.

GPU 0 trains (utilisation 60-99 %), GPU 1 is mostly idle, one sample per GPU per second.
Usage: gen_nvsmi_log.py OUT SIZE_BYTES
"""
import datetime
import random
import sys

out, size = sys.argv[1], int(sys.argv[2])
rng = random.Random(42)
header = ("timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
          "power.draw [W], power.limit [W]\n")
utils0 = [str(rng.randint(60, 99)) for _ in range(997)]
utils1 = [str(rng.choice([0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 35])) for _ in range(991)]
mems = [str(rng.randint(9000, 14500)) for _ in range(983)]
powers = [f"{rng.uniform(25, 69):.2f}" for _ in range(977)]
start = datetime.datetime(2026, 11, 1, 0, 0, 0)
written = 0
sec = 0
with open(out, "w") as f:
    f.write(header)
    written += len(header)
    while written < size:
        day = (start + datetime.timedelta(seconds=sec)).strftime("%Y/%m/%d")
        lines = []
        for s in range(sec, sec + 86400):
            t = s % 86400
            ts = f"{day} {t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}.{s % 1000:03d}"
            lines.append(f"{ts}, 0, Tesla T4, {utils0[s % 997]}, {mems[s % 983]}, 15360, {powers[s % 977]}, 70.00\n"
                         f"{ts}, 1, Tesla T4, {utils1[s % 991]}, 3, 15360, {powers[(s * 7) % 977]}, 70.00\n")
        block = "".join(lines)
        if written + len(block) > size:
            block = block[: size - written]
            block = block[: block.rfind("\n") + 1]
        f.write(block)
        written += len(block)
        sec += 86400
        if not block:
            break
