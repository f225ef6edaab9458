//! Reading an nvidia-smi log into a core [`Diagnoser`] (the IO half of `diagnose` and `sample`): the bytes
//! of a reader pushed 1 MiB at a time (core's line reader decodes and cuts them: UTF-8, UTF-16 with or
//! without BOM, CRLF), or, for a large UTF-8 file, blocks read and parsed by one worker per core and
//! merged in order. Core's worker contract makes the parallel answer the sequential one, bit for bit.

use std::io::{Read, Seek};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use kgadvise_core::diagnose::Diagnoser;
use kgadvise_core::diagnose::nvsmi::CsvWorker;
use kgadvise_core::text::{Encoding, detect};

/// Bytes read at a time.
const CHUNK: usize = 1 << 20;
/// Files at least this large are read by parallel workers once the parser is in a CSV layout.
const PARALLEL_MIN_BYTES: u64 = 32 << 20;
/// Each worker reads one block of about this size (its lines are those that start in it).
const BLOCK: usize = 2 << 20;
/// Bytes read past a block for the line that crosses its end (more are read when a line is longer).
const OVERLAP: usize = 64 << 10;
/// A worker gives up on a line longer than this (binary input): the sequential reader takes the rest of
/// the file.
const LONG_LINE: usize = 4 << 20;
/// Blocks per round for each thread: threads take the next block of the round as they finish one, so a
/// thread slowed by other work on the machine holds the round back by one block at most.
const BLOCKS_PER_THREAD: usize = 4;

/// Pushes everything `r` gives into `d`.
pub fn read_into(mut r: impl Read, d: &mut Diagnoser) -> std::io::Result<()> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => d.push(buf.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Pushes a file into `d`: by parallel workers when it is large, UTF-8 and `threads` > 1.
pub fn read_file(mut f: std::fs::File, threads: usize, d: &mut Diagnoser) -> std::io::Result<()> {
    let big = f
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() >= PARALLEL_MIN_BYTES);
    if !big || threads < 2 {
        return read_into(f, d);
    }
    let mut head = vec![0u8; 512];
    let n = read_full(&mut f, &mut head)?;
    f.rewind()?;
    match detect(head.get(..n).unwrap_or_default()).0 {
        Encoding::Utf8 | Encoding::Utf8Bom => read_parallel(&f, d, threads, BLOCK),
        Encoding::Utf16Le | Encoding::Utf16Be => read_into(f, d),
    }
}

/// Worker threads for large files: `KGADVISE_THREADS` (1 = sequential), else the cores, at most 8. Each
/// worker reads its own blocks (positioned reads), so reading overlaps with parsing; on the shared 2-core
/// bench machine two threads took no more CPU time than one and less wall time (BENCHMARKS.md).
pub fn threads() -> usize {
    if let Some(n) = std::env::var("KGADVISE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return n.clamp(1, 64);
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8)
}

fn read_full(f: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads at `offset` until `buf` is full or the file ends; the number of bytes read.
fn read_full_at(f: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        #[cfg(unix)]
        let r = std::os::unix::fs::FileExt::read_at(f, &mut buf[n..], offset + n as u64);
        #[cfg(windows)]
        let r = std::os::windows::fs::FileExt::seek_read(f, &mut buf[n..], offset + n as u64);
        match r {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The lines of a file that start in a range, read into a worker's buffer.
struct Lines {
    /// Where they lie in the buffer: whole lines, ending at a newline or at the end of the file.
    range: std::ops::Range<usize>,
    /// The file offset of the first line start at or after the range's start offset (where `range`
    /// begins); when `range` is empty, the next line start after the block (or the end of the file).
    at: u64,
    /// The end of the file was reached and no line starts in the range.
    eof: bool,
}

/// Reads on when the newline looked for is not in the buffer yet; false at the end of the file or when the
/// line is longer than [`LONG_LINE`].
fn read_more(
    f: &std::fs::File,
    buf: &mut Vec<u8>,
    from: u64,
    len: &mut usize,
    eof: &mut bool,
    want: usize,
) -> std::io::Result<bool> {
    if *eof || buf.len() >= want + LONG_LINE {
        return Ok(false);
    }
    let old = buf.len();
    buf.resize(old + OVERLAP, 0);
    let n = read_full_at(f, &mut buf[*len..], from + *len as u64)?;
    *len += n;
    *eof = *len < buf.len();
    Ok(true)
}

/// The lines of a file that start in `[start, end)`: `start` is a line start when `first`, else the lines
/// begin after the first newline at or after `start - 1`. Reads them into `buf` (reused); `None` when a
/// line is longer than [`LONG_LINE`].
fn read_lines_in(
    f: &std::fs::File,
    buf: &mut Vec<u8>,
    start: u64,
    end: u64,
    first: bool,
) -> std::io::Result<Option<Lines>> {
    let from = if first { start } else { start - 1 };
    let want = (end - from) as usize + OVERLAP;
    buf.resize(want, 0);
    let mut len = read_full_at(f, buf, from)?;
    let mut eof = len < want;
    let lines = |range: std::ops::Range<usize>, eof: bool| Lines {
        at: from + range.start as u64,
        range,
        eof,
    };
    let mut scan = 0;
    let lo = if first {
        0
    } else {
        loop {
            if let Some(p) = memchr::memchr(b'\n', &buf[scan..len]) {
                break scan + p + 1;
            }
            scan = len;
            if !read_more(f, buf, from, &mut len, &mut eof, want)? {
                return Ok(eof.then(|| lines(len..len, true)));
            }
        }
    };
    // The lines that start before `end`: up to the first newline at or after `end - 1`.
    let limit = (end - from) as usize - 1;
    if lo > limit || lo == len {
        return Ok(Some(lines(lo..lo, lo == len && eof)));
    }
    let mut scan = limit.min(len);
    loop {
        if let Some(p) = memchr::memchr(b'\n', &buf[scan..len]) {
            return Ok(Some(lines(lo..scan + p + 1, false)));
        }
        scan = len;
        if !read_more(f, buf, from, &mut len, &mut eof, want)? {
            return Ok(eof.then(|| lines(lo..len, false)));
        }
    }
}

/// What reading a file does next.
enum Step {
    /// Go on from this offset (a line start).
    Next(u64),
    /// The rest of the file from this offset (a line start) through the sequential reader.
    Rest(u64),
    Done,
}

/// A large UTF-8 file: rounds of blocks, each read (positioned reads, so reading overlaps with parsing)
/// and parsed by the next free thread with a worker from `d`; results merged in order. Whatever a worker
/// cannot read (another header, a table, a bad row, invalid UTF-8, an overlong line) goes through `d`
/// from that line on, and the round's later blocks are read again after it, so the answer is the same
/// as reading line by line. Memory: one buffer of about `block` bytes per thread.
fn read_parallel(
    f: &std::fs::File,
    d: &mut Diagnoser,
    threads: usize,
    block: usize,
) -> std::io::Result<()> {
    let mut bufs: Vec<Vec<u8>> = (0..threads.max(1)).map(|_| Vec::new()).collect();
    // `pos` is always the start of a line (or the end of the file).
    let mut pos: u64 = 0;
    loop {
        let step = match d.csv_worker() {
            None => sequential_block(f, d, &mut bufs[0], pos, block)?,
            Some(first) => parallel_round(f, d, first, &mut bufs, pos, block)?,
        };
        match step {
            Step::Next(next) => pos = next,
            Step::Rest(from) => {
                let mut f = f;
                f.seek(std::io::SeekFrom::Start(from))?;
                return read_into(f, d);
            }
            Step::Done => return Ok(()),
        }
    }
}

/// Not (yet) in a CSV layout workers can read: one block through the sequential reader.
fn sequential_block(
    f: &std::fs::File,
    d: &mut Diagnoser,
    buf: &mut Vec<u8>,
    pos: u64,
    block: usize,
) -> std::io::Result<Step> {
    let Some(lines) = read_lines_in(f, buf, pos, pos + block as u64, true)? else {
        return Ok(Step::Rest(pos));
    };
    if lines.eof || lines.range.is_empty() {
        return Ok(Step::Done);
    }
    d.push(&buf[lines.range.clone()]);
    Ok(Step::Next(lines.at + lines.range.len() as u64))
}

/// What a thread made of one block of a round.
struct BlockDone {
    /// `None`: a line longer than [`LONG_LINE`].
    lines: Option<Lines>,
    /// The worker and the bytes of the block it used (`None`: invalid UTF-8, nothing used).
    parsed: Option<(CsvWorker, usize)>,
}

/// Reads and parses one block of a round into `buf` with its worker.
fn read_block(
    f: &std::fs::File,
    buf: &mut Vec<u8>,
    start: u64,
    block: usize,
    first: bool,
    mut w: CsvWorker,
) -> std::io::Result<BlockDone> {
    let lines = read_lines_in(f, buf, start, start + block as u64, first)?;
    let parsed = match &lines {
        Some(l) if !l.range.is_empty() => {
            std::str::from_utf8(&buf[l.range.clone()]).ok().map(|text| {
                let used = w.feed(text);
                (w, used)
            })
        }
        _ => None,
    };
    Ok(BlockDone { lines, parsed })
}

/// One round: up to [`BLOCKS_PER_THREAD`] blocks per thread from `pos`, read and parsed in parallel (the
/// first by `first`), then merged into `d` in order until a worker stops short.
fn parallel_round(
    f: &std::fs::File,
    d: &mut Diagnoser,
    first: CsvWorker,
    bufs: &mut [Vec<u8>],
    pos: u64,
    block: usize,
) -> std::io::Result<Step> {
    let per_round = bufs.len() * BLOCKS_PER_THREAD;
    let mut workers: Vec<Mutex<Option<CsvWorker>>> = vec![Mutex::new(Some(first))];
    while workers.len() < per_round
        && let Some(w) = d.csv_worker()
    {
        workers.push(Mutex::new(Some(w)));
    }
    let done: Vec<Mutex<Option<std::io::Result<BlockDone>>>> =
        (0..workers.len()).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for buf in bufs.iter_mut() {
            let (workers, done, next) = (&workers, &done, &next);
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(slot), Some(out)) = (workers.get(k), done.get(k)) else {
                        break;
                    };
                    let Some(w) = slot.lock().ok().and_then(|mut x| x.take()) else {
                        break;
                    };
                    let start = pos + (k * block) as u64;
                    let result = read_block(f, buf, start, block, k == 0, w);
                    if let Ok(mut o) = out.lock() {
                        *o = Some(result);
                    }
                }
            });
        }
    });
    let mut pos = pos;
    for out in done {
        let result = out
            .into_inner()
            .ok()
            .flatten()
            .unwrap_or_else(|| Err(std::io::Error::other("a reader thread failed")));
        let BlockDone { lines, parsed } = result?;
        let Some(l) = lines else {
            return Ok(Step::Rest(pos));
        };
        if l.eof {
            return Ok(Step::Done);
        }
        if l.range.is_empty() {
            pos = l.at;
            continue;
        }
        // A worker refused by the merge: its text goes through the sequential reader.
        let used = parsed.map_or(0, |(w, used)| if d.absorb(w) { used } else { 0 });
        let len = l.range.len();
        pos = l.at + len as u64;
        if used < len {
            // The rest of this block through the sequential reader (read again: the buffer went on to
            // another block); the later blocks of the round are read again after it.
            let buf = &mut bufs[0];
            buf.resize(len - used, 0);
            let n = read_full_at(f, buf, l.at + used as u64)?;
            d.push(&buf[..n]);
            return Ok(Step::Next(pos));
        }
    }
    Ok(Step::Next(pos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgadvise_core::diagnose::{DiagnoseRequest, diagnose};

    fn clock() -> chrono::DateTime<chrono::Utc> {
        "2026-12-01T00:00:00Z".parse().unwrap()
    }

    /// The report of `bytes` read from a file by `threads` workers over blocks of `block` bytes.
    fn parallel(bytes: &[u8], threads: usize, block: usize) -> String {
        static FILES: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "kgadvise-log-file-{}-{}.csv",
            std::process::id(),
            FILES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, bytes).unwrap();
        let mut d = Diagnoser::of(&DiagnoseRequest::default(), clock()).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        read_parallel(&f, &mut d, threads, block).unwrap();
        let _ = std::fs::remove_file(&path);
        serde_json::to_string(&d.finish()).unwrap()
    }

    fn sequential(bytes: &[u8]) -> String {
        let mut d = Diagnoser::of(&DiagnoseRequest::default(), clock()).unwrap();
        read_into(bytes, &mut d).unwrap();
        serde_json::to_string(&d.finish()).unwrap()
    }

    /// A CSV log with CRLF, fractional power draws (sums in another order differ in the last bits), a
    /// line longer than a block, a line longer than the line reader hands on whole, invalid UTF-8, a
    /// repeated header, a pasted table, and no final newline.
    fn odd_log() -> Vec<u8> {
        let mut bytes: Vec<u8> =
            b"timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\r\n"
                .to_vec();
        for s in 0..40_000u64 {
            let (h, m, sec) = (s / 3600 % 24, s / 60 % 60, s % 60);
            let row = format!(
                "2026/11/28 {h:02}:{m:02}:{sec:02}.{:03}, {}, Tesla T4, {} %, {} MiB, {}.{:02} W\r\n",
                s % 1000,
                s % 2,
                s % 101,
                9000 + s % 999,
                20 + s % 50,
                s % 97
            );
            bytes.extend_from_slice(row.as_bytes());
            match s {
                5_000 => bytes.extend(std::iter::repeat_n(b'x', 40 << 10).chain(*b"\r\n")),
                9_000 => bytes.extend(
                    std::iter::repeat_n(b'y', kgadvise_core::text::lines::MAX_LINE_BYTES + 7)
                        .chain(*b"\n"),
                ),
                12_000 => bytes.extend_from_slice(
                    b"2026/11/28 10:00:00.000, 0, Tesla \xff\xfe, 5 %, 1 MiB, 1 W\r\n",
                ),
                20_000 => bytes.extend_from_slice(
                    b"timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\r\n",
                ),
                25_000 => bytes.extend_from_slice(b"+-------+\n"),
                _ => {}
            }
        }
        bytes.extend_from_slice(b"2026/11/28 23:59:59.000, 1, Tesla T4, 99 %, 1 MiB, 1.5 W");
        bytes
    }

    #[test]
    fn parallel_blocks_give_the_sequential_answer_bit_for_bit() {
        let bytes = odd_log();
        let expected = sequential(&bytes);
        let whole = DiagnoseRequest {
            log: Some(String::from_utf8_lossy(&bytes).into_owned()),
            ..DiagnoseRequest::default()
        };
        assert_eq!(
            serde_json::to_string(&diagnose(&whole, clock()).unwrap()).unwrap(),
            expected,
            "the text path"
        );
        for (threads, block) in [(1, 64 << 10), (2, 4096), (3, 64 << 10), (4, 1 << 20)] {
            assert_eq!(
                parallel(&bytes, threads, block),
                expected,
                "{threads} threads, blocks of {block}"
            );
        }
        // the timeline was downsampled: its points merged along the way
        let v: serde_json::Value = serde_json::from_str(&expected).unwrap();
        assert!(
            v["gpus"][0]["timeline_step_samples"].as_u64().unwrap() >= 64,
            "{v}"
        );
    }

    #[test]
    fn utf16_and_utf8_with_bom_give_the_utf8_answer() {
        let text = String::from_utf8_lossy(&odd_log()).replace('\u{fffd}', "?");
        let expected = sequential(text.as_bytes());
        let mut bom8 = b"\xEF\xBB\xBF".to_vec();
        bom8.extend_from_slice(text.as_bytes());
        assert_eq!(parallel(&bom8, 2, 4096), expected, "UTF-8 with BOM");
        for (le, bom) in [(true, true), (true, false), (false, true), (false, false)] {
            let mut bytes = match (bom, le) {
                (false, _) => vec![],
                (true, true) => vec![0xFF, 0xFE],
                (true, false) => vec![0xFE, 0xFF],
            };
            for u in text.encode_utf16() {
                bytes.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            assert_eq!(sequential(&bytes), expected, "UTF-16 le={le} bom={bom}");
            assert_eq!(
                parallel(&bytes, 2, 4096),
                expected,
                "UTF-16 le={le} bom={bom}"
            );
        }
    }
}
