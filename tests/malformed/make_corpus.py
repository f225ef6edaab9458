#!/usr/bin/env python3
"""Generates the malformed-input corpus (tests/malformed/<kind>/...) from the real samples in
tests/fixtures/realdata and hand-made breakages. Deterministic: re-running rewrites identical files.
Each file's expected outcome is in expected.toml (kept by hand); the harness in
tests/tests/malformed.rs runs every file through core and the CLI binary.
Usage: python3 tests/malformed/make_corpus.py   (from the workspace root)"""
import json, os, random, struct

ROOT = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(ROOT, "..", "fixtures", "realdata")
rng = random.Random(20261130)

def put(kind, name, data):
    d = os.path.join(ROOT, kind)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def real(rel):
    with open(os.path.join(REAL, rel), "rb") as f:
        return f.read()

# ---------------------------------------------------------------- nvidia-smi (diagnose)
HDR = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], power.limit [W]\n"
def row(ts, i, util, used, total=15360, pd="30.00 W", pl="70.00 W"):
    return f"2026/11/30 10:{ts // 60:02d}:{ts % 60:02d}.000, {i}, Tesla T4, {util}, {used}, {total} MiB, {pd}, {pl}\n"
good = HDR + "".join(row(t, i, f"{50 + i} %", f"{1000 + t} MiB") for t in range(0, 120) for i in (0, 1))
put("nvsmi", "empty.csv", b"")
put("nvsmi", "whitespace-only.txt", "   \n\t\n\n")
put("nvsmi", "bom-only.txt", b"\xef\xbb\xbf")
put("nvsmi", "binary-random.bin", bytes(rng.randrange(256) for _ in range(4096)))
put("nvsmi", "binary-nul-lines.bin", b"\x00\x01\x02\n\x00\x00\n" * 50)
put("nvsmi", "utf16le-bom.csv", b"\xff\xfe" + good.encode("utf-16-le"))
put("nvsmi", "utf16be-bom.csv", b"\xfe\xff" + good.encode("utf-16-be"))
put("nvsmi", "utf16le-odd-length.csv", b"\xff\xfe" + good.encode("utf-16-le")[:-1])
put("nvsmi", "crlf.csv", good.replace("\n", "\r\n"))
put("nvsmi", "cr-cr-lf.csv", good.replace("\n", "\r\r\n"))
put("nvsmi", "header-only.csv", HDR)
put("nvsmi", "header-truncated.csv", HDR[:37])
put("nvsmi", "row-truncated-mid-value.csv", HDR + row(0, 0, "50 %", "1000 MiB") + row(1, 0, "50 %", "1000 MiB")[:40])
put("nvsmi", "all-NA.csv", HDR + "".join(f"2026/11/30 10:00:{t:02d}.000, 0, Tesla T4, [N/A], [N/A], [N/A], [N/A], [N/A]\n" for t in range(30)))
put("nvsmi", "not-supported-everywhere.csv", "".join("[Not Supported], [Not Supported], [Not Supported]\n" for _ in range(10)))
put("nvsmi", "negative-util.csv", HDR + "".join(row(t, 0, "-5 %", "100 MiB") for t in range(10)))
put("nvsmi", "util-over-100.csv", HDR + "".join(row(t, 0, "1000 %", "100 MiB") for t in range(10)))
put("nvsmi", "nan-values.csv", HDR + "".join(row(t, 0, "NaN %", "nan MiB") for t in range(10)))
put("nvsmi", "inf-values.csv", HDR + "".join(row(t, 0, "inf %", "1e999 MiB", total="inf") for t in range(10)))
put("nvsmi", "huge-numbers.csv", HDR + "".join(row(t, 0, "99999999999999999999 %", "1e308 MiB", total="1e308") for t in range(10)))
put("nvsmi", "memory-over-total.csv", HDR + "".join(row(t, 0, "90 %", "99999 MiB") for t in range(10)))
put("nvsmi", "timestamps-out-of-order.csv", HDR + "".join(row(t, 0, "70 %", "100 MiB") for t in (50, 10, 40, 0, 30, 20)))
put("nvsmi", "timestamps-repeated.csv", HDR + "".join(row(5, 0, "70 %", "100 MiB") for _ in range(20)))
put("nvsmi", "timestamps-garbage.csv", HDR + "".join(f"yesterday at noon, 0, Tesla T4, 70 %, 100 MiB, 15360 MiB, 30 W, 70 W\n" for _ in range(5)))
put("nvsmi", "mixed-gpu-counts.csv", HDR + "".join(row(t, i, "70 %", "100 MiB") for t in range(20) for i in ((0, 1) if t % 2 else (0,))))
put("nvsmi", "index-not-a-number.csv", HDR + "".join(f"2026/11/30 10:00:{t:02d}.000, gpu{t}, Tesla T4, 70 %, 100 MiB, 15360 MiB, 30 W, 70 W\n" for t in range(5)))
put("nvsmi", "too-many-columns.csv", HDR + "".join(row(t, 0, "70 %", "100 MiB").rstrip("\n") + ", extra, more\n" for t in range(5)))
put("nvsmi", "too-few-columns.csv", HDR + "2026/11/30 10:00:00.000, 0\n" * 5)
put("nvsmi", "decimal-comma.csv", "index, utilization.gpu [%], memory.used [MiB]\n0, 55,5 %, 1000 MiB\n")
put("nvsmi", "noheader-unknown-fields.csv", "a, b, c, d\n1, 2, 3, 4\n")
put("nvsmi", "html-page.html", "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>\n")
put("nvsmi", "kernel-metadata-instead.json", real("kernel-metadata/cube555-2xT4_machine_shape-NvidiaTeslaT4_Erlemar.json"))
table = real("nvidia-smi-table/kaggle-2xT4-580.159.04-cuda13.0_picchio.txt").decode()
lines = table.splitlines(keepends=True)
for cut in range(2, len(lines), 3):
    put("nvsmi", f"table-truncated-at-line-{cut:02d}.txt", "".join(lines[:cut]))
put("nvsmi", "table-truncated-mid-line.txt", table[: len(table) // 2])
put("nvsmi", "table-NA-everywhere.txt", table.replace("0MiB", "N/A").replace("0%", "N/A").replace("9W", "N/A").replace("70W", "N/A"))
xml = real("nvidia-smi-query/tesla-T4-515.105.01_q-x_v11_telegraf.xml").decode()
for frac in (0.1, 0.3, 0.5, 0.9):
    put("nvsmi", f"xml-truncated-{int(frac * 100)}pct.xml", xml[: int(len(xml) * frac)])
put("nvsmi", "xml-not-nvidia.xml", '<?xml version="1.0" ?>\n<root><gpu>yes</gpu></root>\n')
put("nvsmi", "xml-entity-bomb.xml", '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>\n<nvidia_smi_log><gpu id="0"><product_name>&lol2;</product_name></gpu></nvidia_smi_log>\n')
q = real("nvidia-smi-query/rtx2080super-linux-610.57.04_q_idle_nvgpuexp.txt").decode()
put("nvsmi", "q-text-truncated.txt", q[: len(q) // 3])
put("nvsmi", "q-text-values-garbage.txt", q.replace(" MiB", " lots").replace(" %", " percent"))
dmon = real("nvidia-smi-dmon/l40s-595.80_dmon_load_nvgpuexp.txt").decode()
put("nvsmi", "dmon-header-only.txt", "\n".join(dmon.splitlines()[:2]) + "\n")
put("nvsmi", "dmon-garbage-rows.txt", "\n".join(dmon.splitlines()[:2]) + "\n    0  abc  def  -  -  x\n  zz\n")
put("nvsmi", "dmon-all-dashes.txt", "\n".join(dmon.splitlines()[:2]) + "\n" + "    0      -      -      -      -      -      -      -      -      -      -      -\n" * 5)

# ---------------------------------------------------------------- quota
put("quota", "empty.txt", b"")
put("quota", "binary.bin", bytes(rng.randrange(256) for _ in range(1024)))
put("quota", "csv-header-only.csv", "resource,used,remaining,total,refreshAt\r\n")
put("quota", "csv-bad-hours.csv", "resource,used,remaining,total,refreshAt\r\nGPU,lots,27.58h,30.00h,2026-09-19T00:00:00\r\n")
put("quota", "csv-negative-hours.csv", "resource,used,remaining,total,refreshAt\r\nGPU,-2.00h,32.00h,30.00h,2026-09-19T00:00:00\r\n")
put("quota", "csv-bad-date.csv", "resource,used,remaining,total,refreshAt\r\nGPU,2.42h,27.58h,30.00h,19/09/2026\r\n")
put("quota", "csv-missing-columns.csv", "resource,used\r\nGPU,2.42h\r\n")
put("quota", "csv-unknown-resource.csv", "resource,used,remaining,total,refreshAt\r\nFPGA,1.00h,2.00h,3.00h,2026-09-19T00:00:00\r\n")
put("quota", "csv-utf16.csv", b"\xff\xfe" + "resource,used,remaining,total,refreshAt\r\nGPU,2.42h,27.58h,30.00h,2026-09-19T00:00:00\r\n".encode("utf-16-le"))
put("quota", "json-truncated.json", '[{"resource": "GPU", "used": "19.55h", "remaining": "10.4')
put("quota", "json-wrong-types.json", '[{"resource": "GPU", "used": true, "remaining": [1], "total": {}, "refreshAt": 5}]')
put("quota", "json-empty-list.json", "[]")
put("quota", "json-huge-number.json", '[{"resource": "GPU", "used": 1e308, "remaining": 1e308, "total": 1e308, "refreshAt": "2026-09-19T00:00:00"}]')
put("quota", "api-bad-duration.json", '{"quotaRefreshTime": "2026-09-19T00:00:00Z", "gpuQuota": {"timeUsed": "12 minutes", "totalTimeAllowed": "108000s"}}')
put("quota", "api-negative-duration.json", '{"quotaRefreshTime": "2026-09-19T00:00:00Z", "gpuQuota": {"timeUsed": "-5s", "totalTimeAllowed": "108000s"}}')
put("quota", "api-bad-refresh.json", '{"quotaRefreshTime": "soon", "gpuQuota": {"timeUsed": "5s", "totalTimeAllowed": "108000s"}}')
put("quota", "kgkit-cache-missing-fields.json", '{"used_h": 3.5}')
put("quota", "kgkit-cache-bad-fetched.json", '{"used_h": 3.5, "remaining_h": 26.5, "total_h": 30, "refresh_at": null, "fetched_at": "last week"}')
put("quota", "table-truncated.txt", "resource  used   remaining  total   refreshAt            \n--------  -----  ---------  ------  -------------------  \nGPU       2.42h  27.5")
put("quota", "prose.txt", "I think I have about ten hours left this week?\n")

# ---------------------------------------------------------------- kernel metadata (check)
put("kernel", "empty.json", b"")
put("kernel", "not-json.json", "id: me/kernel\ntitle: My kernel\n")
put("kernel", "truncated.json", '{\n  "id": "me/my-kernel",\n  "title": "My kern')
put("kernel", "array.json", '[{"id": "me/x"}]')
put("kernel", "string.json", '"kernel-metadata"')
put("kernel", "wrong-types.json", json.dumps({"id": 5, "title": ["a"], "code_file": None, "language": 1, "kernel_type": {}, "enable_gpu": 1, "is_private": "maybe", "dataset_sources": "me/data"}))
put("kernel", "notebook-instead.ipynb", json.dumps({"cells": [{"cell_type": "code", "source": ["print(1)"], "outputs": []}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
put("kernel", "binary.bin", bytes(rng.randrange(256) for _ in range(2048)))
put("kernel", "bom-and-crlf.json", b"\xef\xbb\xbf" + json.dumps({"id": "me/x-kernel", "title": "X kernel", "code_file": "missing.py", "language": "python", "kernel_type": "script"}, indent=2).replace("\n", "\r\n").encode())
put("kernel", "utf16.json", b"\xff\xfe" + json.dumps({"id": "me/x-kernel", "title": "X kernel"}).encode("utf-16-le"))
put("kernel", "huge-title.json", json.dumps({"id": "me/x", "title": "T" * 2_000_000, "code_file": "a.py", "language": "python", "kernel_type": "script"}))
put("kernel", "deeply-nested.json", "[" * 10000 + "]" * 10000)
put("kernel", "duplicate-keys.json", '{"id": "me/a-kernel", "id": "me/b-kernel", "title": "Kernel", "code_file": "a.py", "language": "python", "kernel_type": "script"}')

# ---------------------------------------------------------------- compare / fidelity / prune / collect
put("compare", "empty.csv", b"")
put("compare", "header-only.csv", "y_true,y_pred\n")
put("compare", "missing-y_pred.csv", "y_true,score\n1,0.5\n0,0.2\n")
put("compare", "non-numeric.csv", "y_true,y_pred\n1,high\n0,low\n")
put("compare", "nan-preds.csv", "y_true,y_pred\n1,NaN\n0,0.3\n1,0.9\n")
put("compare", "one-row.csv", "y_true,y_pred\n1,0.7\n")
put("compare", "ragged-rows.csv", "y_true,y_pred,fold\n1,0.7,0\n0\n1,0.2,0,extra\n")
put("compare", "binary.bin", bytes(rng.randrange(256) for _ in range(1024)))
put("compare", "semicolon-decimal-comma.csv", "y_true;y_pred\n1;0,7\n0;0,2\n")
put("fidelity", "two-ideas.csv", "idea,screen_gain,full_gain\na,0.1,0.2\nb,-0.1,0.05\n")
put("fidelity", "non-numeric.csv", "idea,screen_gain,full_gain\na,big,0.2\nb,0.1,0.1\nc,0.2,0.3\n")
put("fidelity", "empty.csv", b"")
put("fidelity", "missing-column.csv", "idea,screen_gain\na,0.1\nb,0.2\nc,0.3\n")
put("prune", "empty.json", b"")
put("prune", "truncated.json", '{"fold": 0, "epochs": 10, "greater_is_better": true, "points": [{"epoch": 1, "sc')
put("prune", "no-points.json", '{"fold": 0, "epochs": 10, "greater_is_better": true, "points": []}')
put("prune", "zero-epochs.json", '{"fold": 0, "epochs": 0, "greater_is_better": true, "points": [{"epoch": 1, "score": 0.5, "seconds": 10}]}')
put("prune", "nan-score.json", '{"fold": 0, "epochs": 10, "greater_is_better": true, "points": [{"epoch": 1, "score": "NaN", "seconds": 10}]}')
put("collect", "empty.json", b"")
put("collect", "truncated.json", '{"jobs": [{"name": "a", "folds": [0, 1], "fold_status": {"0": {"status": "do')
put("collect", "wrong-types.json", '{"jobs": "all of them", "gpus": "two", "elapsed_s": "long"}')
put("collect", "array.json", "[1, 2, 3]")
# items of `jobs` that are not objects before the job whose fold failed: its log tail is still its own
put("collect", "non-object-jobs.json", json.dumps({"jobs": [7, "x", {"name": "a", "folds": [0], "fold_status": {"0": {"status": "failed", "returncode": 1, "seconds": 40}}, "errors": {"0": "Traceback\nValueError: boom"}}], "elapsed_s": 100.0}))
# a kernel's log (collect --log FILE --timeout-seconds 3600) and its status (collect --status FILE)
REC = '{"stream_name":"stdout","time":%s,"data":"%s\\n"}'
kaggle_log = "[" + "\n,".join(REC % (t, d) for t, d in [("1.5", "start"), ("3590.25", "epoch 3")]) + "\n]"
put("collect-log", "empty.log", b"")
# a model file given as the log by mistake (a zip, as torch.save writes): binary, refused
put("collect-log", "model-zip.bin", b"PK\x03\x04\x00\x00\x08\x08\x00\x00" + b"archive/data.pkl\x80\x02}q\x00(X\x05\x00\x00\x00" * 8)
put("collect-log", "truncated-record.log", kaggle_log[:kaggle_log.index("3590") + 3])
put("collect-log", "one-line-list.log", kaggle_log.replace("\n", ""))
put("collect-log", "crlf.log", kaggle_log.replace("\n", "\r\n"))
put("collect-log", "utf16le-bom.log", b"\xff\xfe" + kaggle_log.encode("utf-16-le"))
put("collect-log", "not-a-log.json", '{"jobs": [], "elapsed_s": 100}')
put("collect-log", "odd-times.log", "[" + "\n,".join(REC % (t, "x") for t in ['-5', '"12s"', '"soon"', 'null', '1e308']) + "\n]")
# a `kgadvise watch` diagnosis line cut short (the session killed while it was printed): reported, no KR016
put("collect-log", "cut-diagnosis.log", "[" + "\n,".join(REC % (t, d) for t, d in [("1.5", "start"), ("3590.25", 'KGADVISE_DIAGNOSIS {\\"verdicts\\":[\\"idle\\"')]) + "\n]")
put("collect-status", "empty.txt", b"")
put("collect-status", "binary.bin", b"\x00\x01status\x00")
put("collect-status", "http-500.txt", real("kaggle-cli/status-500-GetKernelSessionStatus-2026_kaggle-cli-issue1053.txt"))
put("collect-status", "unknown-status.txt", 'me/k has status "KernelWorkerStatus.PAUSED"\n')
put("collect-status", "unterminated-quote.txt", 'me/k has status "RUNNING\n')
put("collect-status", "crlf-polled.txt", 'me/k has status "KernelWorkerStatus.RUNNING"\r\nme/k has status "KernelWorkerStatus.ERROR"\r\nFailure message: "boom"\r\n')
put("bench-history", "garbage.jsonl", "hello\n{\"name\": 5}\n\n\x00\x01\n")

# ---------------------------------------------------------------- more quota forms
put("quota", "csv-decimal-comma.csv", "resource,used,remaining,total,refreshAt\r\nGPU,\"2,42h\",\"27,58h\",\"30,00h\",2026-09-19T00:00:00\r\n")
put("quota", "csv-nan-hours.csv", "resource,used,remaining,total,refreshAt\nGPU,NaN,NaN,NaN,2026-09-19T00:00:00\n")
put("quota", "csv-over-a-week.csv", "resource,used,remaining,total,refreshAt\nGPU,2.00h,500.00h,502.00h,2026-09-19T00:00:00\n")
put("quota", "csv-local-date-format.csv", "resource,used,remaining,total,refreshAt\nGPU,2.42h,27.58h,30.00h,9/19/2026 12:00:00 AM\n")
put("quota", "csv-utf16be.csv", b"\xfe\xff" + "resource,used,remaining,total,refreshAt\r\nGPU,2.42h,27.58h,30.00h,2026-09-19T00:00:00\r\n".encode("utf-16-be"))
put("quota", "csv-utf16le-no-bom.csv", "resource,used,remaining,total,refreshAt\r\nGPU,2.42h,27.58h,30.00h,2026-09-19T00:00:00\r\n".encode("utf-16-le"))
put("quota", "csv-repeated-gpu-rows.csv", "resource,used,remaining,total,refreshAt\nGPU,2.00h,28.00h,30.00h,2026-09-19T00:00:00\nGPU,5.00h,25.00h,30.00h,2026-09-19T00:00:00\n")
put("quota", "table-NA-everywhere.txt", "resource  used   remaining  total   refreshAt\n--------  -----  ---------  ------  ---------\nGPU       N/A    N/A        N/A     N/A\n")
put("quota", "json-object-not-quota.json", '{"hello": "world"}')
put("quota", "json-deeply-nested.json", "[" * 5000 + "]" * 5000)
put("quota", "html-login-page.html", "<!DOCTYPE html><html><head><title>Sign in | Kaggle</title></head><body></body></html>\n")
put("quota", "kernel-metadata-instead.json", real("kernel-metadata/cube555-2xT4_machine_shape-NvidiaTeslaT4_Erlemar.json"))

# ---------------------------------------------------------------- kgkit runs log (quota --runs)
put("runs", "garbage.jsonl", "not json\n{\"status\": 5}\n")
put("runs", "empty.jsonl", b"")
put("runs", "binary.bin", bytes(rng.randrange(256) for _ in range(1024)))
put("runs", "bad-times.jsonl", '{"kernel": "me/a", "status": "running", "pushed_at": "yesterday", "hours": 5}\n{"kernel": "me/b", "status": "running", "pushed_at": "2026-11-30T09:00:00Z", "hours": 2}\n')
put("runs", "negative-hours.jsonl", '{"kernel": "me/a", "status": "running", "pushed_at": "2026-11-30T09:00:00Z", "hours": -3}\n')
put("runs", "truncated-last-line.jsonl", '{"kernel": "me/a", "status": "running", "pushed_at": "2026-11-30T09:00:00Z", "hours": 2}\n{"kernel": "me/b", "sta')
put("runs", "array-line.jsonl", '[1, 2]\n{"kernel": "me/a", "status": "queued", "pushed_at": "2026-11-30T09:00:00Z"}\n')
put("runs", "crlf-bom.jsonl", b"\xef\xbb\xbf" + b'{"kernel": "me/a", "status": "running", "pushed_at": "2026-11-30T09:00:00Z", "hours": 2}\r\n')
put("runs", "utf16le.jsonl", b"\xff\xfe" + '{"kernel": "me/a", "status": "running", "pushed_at": "2026-11-30T09:00:00Z", "hours": 2}\n'.encode("utf-16-le"))

# ---------------------------------------------------------------- more kernel metadata
put("kernel", "utf16be.json", b"\xfe\xff" + json.dumps({"id": "me/x-kernel", "title": "X kernel"}).encode("utf-16-be"))
put("kernel", "utf16le-odd-length.json", (b"\xff\xfe" + json.dumps({"id": "me/x-kernel"}).encode("utf-16-le"))[:-1])
put("kernel", "latin1.json", '{"id": "me/caf\u00e9", "title": "Caf\u00e9"}'.encode("latin-1"))
put("kernel", "nan-and-huge-numbers.json", '{"id": "me/x-kernel", "title": "X kernel", "id_no": 1e400, "enable_gpu": NaN}')
put("kernel", "trailing-comma.json", '{"id": "me/x-kernel", "title": "X kernel",}')
put("kernel", "null.json", "null")

# ---------------------------------------------------------------- kernel folders (check DIR): the code file
def folder(name, meta, files):
    d = os.path.join("kernel-folder", name)
    put(d, "kernel-metadata.json", json.dumps(meta, indent=2))
    for fname, data in files.items():
        put(d, fname, data)
META = {"id": "me/train-kernel", "title": "Train kernel", "code_file": "train.py", "language": "python",
        "kernel_type": "script", "is_private": True, "enable_gpu": False, "enable_internet": True}
folder("zero-byte-code", META, {"train.py": b""})
folder("binary-code", META, {"train.py": bytes(rng.randrange(256) for _ in range(2048))})
folder("truncated-notebook", dict(META, code_file="nb.ipynb", kernel_type="notebook"), {"nb.ipynb": '{"cells": [{"cell_type": "code", "source": ["print(1)"], "outp'})
folder("notebook-cells-not-a-list", dict(META, code_file="nb.ipynb", kernel_type="notebook"), {"nb.ipynb": '{"cells": {"a": 1}, "nbformat": 4}'})
folder("utf16-metadata-and-code", META, {"train.py": b"\xff\xfe" + "print('hi')\n".encode("utf-16-le")})
put(os.path.join("kernel-folder", "utf16-metadata-and-code"), "kernel-metadata.json", b"\xff\xfe" + json.dumps(META).encode("utf-16-le"))
folder("code-file-missing", dict(META, code_file="nowhere/train.py"), {})
folder("code-file-absolute", dict(META, code_file="/definitely/not/here.py"), {})
print("corpus written")
