// The cases the package must answer as the CLI does, data only (see harness.mjs for what a case is):
// every case of the rule fixtures (tests/fixtures/rules/*.toml: requests already), the CLI's own examples,
// every shared fixture file of each advisor, and the real samples of tests/fixtures/realdata (its
// kaggle-cli/ holds `kaggle kernels` output, which no advisor reads). A new fixture folder or CLI example
// is one row.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FIXTURES, MALFORMED, camel, entries, isDir, toml } from './harness.mjs';

const fixture = (rel) => join(FIXTURES, rel);

/**
 * Every case of tests/fixtures/rules/<CODE>.toml: `command`, `request`, `files` (under tests/fixtures).
 * The cases of `bench` (runs the CLI measured) have no function: the package has no `bench`, which runs
 * and times commands.
 */
export function ruleCases() {
  const out = [];
  for (const path of entries(fixture('rules')).filter((p) => p.endsWith('.toml'))) {
    // bench runs and times commands, the loop's advisors (loop-*) drive the Kaggle CLI: the CLI's alone.
    for (const c of (toml(path).case ?? []).filter((c) => c.command !== 'bench' && !c.command.startsWith('loop-'))) {
      const files = Object.fromEntries(Object.entries(c.files ?? {}).map(([k, rel]) => [k, fixture(rel)]));
      out.push({ name: `${basename(path, '.toml')}: ${c.name}`, fn: camel(c.command), request: c.request ?? {}, files });
    }
  }
  return out;
}

/**
 * A kernel folder of the fixtures: kernel-metadata.json and `args`, the CLI's flags (the code file is what
 * the CLI finds next to the metadata: harness.mjs gives the package the same).
 */
function kernelFolder(dir) {
  const argv = existsSync(join(dir, 'args')) ? readFileSync(join(dir, 'args'), 'utf8').split('\n').filter(Boolean) : [];
  const request = {};
  for (let i = 0; i < argv.length; i++) {
    const key = camel(argv[i].replace(/^--/, ''));
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) {
      request[key] = true;
    } else {
      request[key] = key === 'runningKernels' ? next.split(',') : Number.isNaN(Number(next)) ? next : Number(next);
      i++;
    }
  }
  return { request, files: { metadata: join(dir, 'kernel-metadata.json') } };
}

/** The CLI's examples and every shared fixture, by advisor. */
export function fixtureCases() {
  const rows = [
    // cap: the CLI's examples, `set` in both forms, and errors core finds (not clap).
    { fn: 'cap', request: { measured: 3.5 } },
    { fn: 'cap', request: { measured: 3.5, factor: 1.3 } },
    { fn: 'cap', request: { foldHours: 1.5, folds: 5 } },
    { fn: 'cap', request: { foldHours: 4, folds: 7 } },
    { fn: 'cap', request: { measured: 7, tpu: true } },
    { fn: 'cap', request: { measured: 10, gpus: 1, set: { 'cap.factor': 1.5 } } },
    { fn: 'cap', request: { measured: 10, set: ['cap.factor=1.5'] } },
    { fn: 'cap', request: { measured: 10, now: '2031-01-01' } },
    { fn: 'cap', request: { measured: -1 } },
    { fn: 'cap', request: { measured: 3, factor: 0 } },
    { fn: 'cap', request: { foldHours: 1, folds: 0 } },
    { fn: 'cap', request: { measured: 3, gpus: 0 } },
    { fn: 'cap', request: { measured: 3, now: 'yesterday' } },
    { fn: 'cap', request: { measured: 3, set: ['nope=1'] } },
    // matrix, defaults, worth-gpu, explain: the CLI's examples.
    { fn: 'matrix', request: {} },
    { fn: 'matrix', request: { platform: 't4x2', capability: 'bf16' } },
    { fn: 'matrix', request: { platform: 'p100' } },
    { fn: 'matrix', request: { capability: 'torch-compile' } },
    { fn: 'defaults', request: { domain: 'images', platform: 't4x2' } },
    { fn: 'defaults', request: { domain: 'tabular', platform: 'cpu' } },
    { fn: 'defaults', request: { domain: 'text', platform: 'linux', cores: 16, processes: 2 } },
    { fn: 'defaults', request: { domain: 'llm-finetune' } },
    { fn: 'worthGpu', request: { task: 'gbdt', rows: 2000000 } },
    { fn: 'worthGpu', request: { task: 'gbdt', rows: 300000, refits: 200 } },
    { fn: 'worthGpu', request: { task: 'dataframe', rows: 50000 } },
    { fn: 'explain', request: { id: 'KH001' } },
    { fn: 'explain', request: { id: 'matrix.bf16.t4x2' } },
    { fn: 'explain', request: { id: 'shape.TpuV5E1' } },
    { fn: 'explain', request: { id: 'threshold.cap.factor' } },
    { fn: 'explain', request: { id: 'KZ999' } },
    { fn: 'explain', request: { list: true } },
    // diagnose: the three bench rates alone, and every log of the fixtures.
    { fn: 'diagnose', request: { dataRate: 410, computeRate: 980, loopRate: 400 } },
    ...entries(fixture('diagnose'))
      .filter((p) => !p.endsWith('.sh'))
      .map((p) => ({ fn: 'diagnose', files: { log: p } })),
    // quota: every form, read live; with a runs log.
    ...entries(fixture('quota'))
      .filter((p) => !p.endsWith('.jsonl'))
      .map((p) => ({ fn: 'quota', request: { live: true }, files: { quota: p } })),
    { fn: 'quota', request: { live: true }, files: { quota: fixture('quota/gpu_quota.json'), runs: fixture('quota/gpu_runs.jsonl') } },
    { fn: 'quota', request: { live: true }, files: { quota: fixture('kernel-quota/low-gpu.csv') } },
    // plan and tpu: the CLI's examples.
    { fn: 'plan', request: { deadline: '2026-12-17', gpuRemaining: 11, refreshAt: '2026-12-05T00:00:00' } },
    { fn: 'plan', request: { deadline: '2026-12-17', live: true }, files: { quota: fixture('quota/cli.json') } },
    { fn: 'plan', request: { deadline: '2026-12-17', live: true, foldHours: 1.5, folds: 5 }, files: { quota: fixture('quota/gpu_quota.json'), runs: fixture('quota/gpu_runs.jsonl') } },
    { fn: 'tpu', request: { t4Hours: 30, gpuPlannable: 4 } },
    { fn: 'tpu', request: { t4Hours: 6, gpuPlannable: 20, queueHours: 24 } },
    { fn: 'tpu', request: { t4Hours: 30 }, files: { quota: fixture('quota/table.txt') } },
    // check: every kernel folder of the fixtures (KM*), with its flags; collect: every kg_run.json (KR*).
    // (tests/fixtures/kernel also holds kaggle-logs.md, which says where the logs' format comes from.)
    ...entries(fixture('kernel'))
      .filter(isDir)
      .flatMap((rule) => entries(rule))
      .filter((dir) => existsSync(join(dir, 'kernel-metadata.json')))
      .map((dir) => ({ fn: 'check', ...kernelFolder(dir) })),
    ...entries(fixture('kernel'))
      .filter(isDir)
      .flatMap((rule) => entries(rule))
      .filter((dir) => existsSync(join(dir, 'kg_run.json')))
      .map((dir) => ({ fn: 'collect', files: { report: join(dir, 'kg_run.json') } })),
    // collect for a kernel without kg_run.json: every folder with a status.txt, its log beside it.
    ...entries(fixture('kernel'))
      .filter(isDir)
      .flatMap((rule) => entries(rule))
      .filter((dir) => existsSync(join(dir, 'status.txt')))
      .map((dir) => {
        const log = entries(dir).find((p) => /\.(log|txt)$/.test(p) && basename(p) !== 'status.txt');
        return { fn: 'collect', request: { timeoutSeconds: 10800 }, files: { status: join(dir, 'status.txt'), ...(log ? { log } : {}) } };
      }),
    // compare, prune and fidelity: the statistics fixtures.
    { fn: 'compare', request: { metric: 'auc' }, files: { idea: fixture('stats/binary_idea.csv'), control: fixture('stats/binary_control.csv') } },
    { fn: 'compare', request: { metric: 'auc' }, files: { idea: fixture('stats/promote_idea.csv'), control: fixture('stats/promote_control.csv') } },
    { fn: 'compare', request: { metric: 'auc' }, files: { idea: fixture('stats/just_clears_idea.csv'), control: fixture('stats/just_clears_control.csv') } },
    { fn: 'compare', request: { metric: 'logloss', resamples: 1000, seed: 7 }, files: { idea: fixture('stats/binary_idea.csv'), control: fixture('stats/binary_control.csv') } },
    { fn: 'compare', request: { metric: 'rmse' }, files: { idea: fixture('stats/regression_idea.csv'), control: fixture('stats/regression_control.csv'), folds: fixture('stats/baseline_folds.csv') } },
    { fn: 'fidelity', files: { backlog: fixture('stats/fidelity_ideas.csv') } },
    { fn: 'fidelity', files: { backlog: fixture('stats/fidelity_bad.csv') } },
    ...['early', 'keeping_up', 'trailing'].map((c) => ({ fn: 'prune', files: { baseline: fixture('stats/curves/baseline.json'), current: fixture(`stats/curves/${c}.json`) } })),
    { fn: 'prune', request: { margin: 0.01 }, files: { baseline: fixture('stats/curves/baseline_folds.json'), current: fixture('stats/curves/trailing.json'), folds: fixture('stats/baseline_folds.csv') } },
    // prune: the curves of tests/tests/stats.rs, given as text.
    { fn: 'prune', request: { baseline: curve(10, [[1, 0.7], [2, 0.75], [3, 0.76], [4, 0.8], [10, 0.9]]), current: curve(10, [[1, 0.6], [2, 0.65], [3, 0.7], [4, 0.71]]), margin: 0.05 } },
    { fn: 'prune', request: { baseline: curve(10, [[1, 0.7], [2, 0.75], [3, 0.76], [4, 0.8], [10, 0.9]]), current: curve(10, [[1, 0.1], [2, 0.1]]) } },
    // bench history: the fixtures, and two records of one bench given as text.
    ...entries(fixture('bench')).filter((p) => p.endsWith('.jsonl')).map((p) => ({ fn: 'benchHistory', files: { history: p } })),
    { fn: 'benchHistory', request: { history: BENCH_HISTORY } },
    { fn: 'benchHistory', request: { history: BENCH_HISTORY, name: 'img' } },
    // inference: per item, and per batch on a P100.
    { fn: 'inference', request: { itemSeconds: 0.9, testItems: 40000, limitHours: 9 } },
    { fn: 'inference', request: { batchSeconds: 2, batchSize: 64, testItems: 100000, limitHours: 1, platform: 'p100' } },
    // The real samples: every nvidia-smi output, quota reading and kernel metadata.
    ...['nvidia-smi-csv', 'nvidia-smi-dmon', 'nvidia-smi-query', 'nvidia-smi-table']
      .flatMap((d) => entries(fixture(`realdata/${d}`)))
      .map((p) => ({ fn: 'diagnose', files: { log: p } })),
    ...entries(fixture('realdata/kaggle-quota')).map((p) => ({ fn: 'quota', request: { live: true }, files: { quota: p } })),
    ...entries(fixture('realdata/kaggle-quota')).map((p) => ({ fn: 'tpu', request: { t4Hours: 20 }, files: { quota: p } })),
    ...entries(fixture('realdata/kernel-metadata')).map((p) => ({ fn: 'check', request: { timeoutSeconds: 7200 }, files: { metadata: p } })),
  ];
  return rows.map((r) => ({ name: nameOf(r), ...r }));
}

/** A learning curve as kgkit writes it (curve_fold<k>.json). */
function curve(epochs, points) {
  return JSON.stringify({ fold: 0, epochs, greater_is_better: true, points: points.map(([epoch, score]) => ({ epoch, score, seconds: 61.5 })) });
}

const BENCH_HISTORY = [
  { name: 'img', time: '2026-11-30T10:00:00Z', command: 'python train.py --bs 64', wall_s: 120, exit_code: 0, verdicts: ['input-bound'] },
  { name: 'img', time: '2026-11-30T11:00:00Z', command: 'python train.py --bs 128', wall_s: 50, exit_code: 0, verdicts: ['compute-bound'] },
  { name: 'gbdt', time: '2026-11-30T12:00:00Z', command: 'python train_gbdt.py --device cuda', wall_s: 30, exit_code: 0 },
].map((r) => `${JSON.stringify(r)}\n`).join('');

function nameOf({ fn, request = {}, files = {} }) {
  const short = (v) => (typeof v === 'string' && v.length > 40 ? `${v.slice(0, 37)}...` : v);
  const parts = Object.entries(request).map(([k, v]) => `${k}=${JSON.stringify(short(v))}`);
  for (const [k, p] of Object.entries(files)) parts.push(`${k}=${p.replace(`${FIXTURES}/`, '')}`);
  return `${fn} ${parts.join(' ')}`.trim();
}

/**
 * How the package reads each kind of tests/malformed/ (as tests/tests/malformed.rs runs the CLI): the
 * function and the request for one entry (a kernel folder: its metadata, and the code file the CLI finds).
 */
export const MALFORMED_KINDS = {
  kernel: (p) => ({ fn: 'check', files: { metadata: p } }),
  'kernel-folder': (p) => ({ fn: 'check', ...kernelFolder(p) }),
  quota: (p) => ({ fn: 'quota', request: { live: true }, files: { quota: p } }),
  runs: (p) => ({ fn: 'quota', request: { live: true }, files: { quota: fixture('quota/api.json'), runs: p } }),
  collect: (p) => ({ fn: 'collect', files: { report: p } }),
  'collect-log': (p) => ({ fn: 'collect', request: { timeoutSeconds: 3600 }, files: { log: p } }),
  'collect-status': (p) => ({ fn: 'collect', files: { status: p } }),
  nvsmi: (p) => ({ fn: 'diagnose', files: { log: p } }),
  compare: (p) => ({ fn: 'compare', request: { metric: 'auc' }, files: { idea: p, control: p } }),
  fidelity: (p) => ({ fn: 'fidelity', files: { backlog: p } }),
  prune: (p) => ({ fn: 'prune', files: { baseline: p, current: p } }),
  'bench-history': (p) => ({ fn: 'benchHistory', files: { history: p } }),
};

/** Every entry of tests/malformed/ the package can be given, by kind. */
export function malformedCases() {
  const out = {};
  for (const dir of entries(MALFORMED).filter(isDir)) {
    const kind = basename(dir);
    const of = MALFORMED_KINDS[kind];
    out[kind] = of ? entries(dir).map((p) => ({ name: `${kind}/${basename(p)}`, ...of(p) })) : null;
  }
  return out;
}
