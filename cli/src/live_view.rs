//! Drawing core's live report (`kgadvise sample --live`, `kgadvise watch`): on a terminal the view is
//! redrawn in place (crossterm's cursor moves and clears), the watched command's output and the alarms
//! scrolling above it; anywhere else (a file, a pipe, a Kaggle kernel's log) one plain line per refresh.
//! Every word, glyph and number is core's (`kgadvise_core::diagnose::live`); this only places them.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossterm::{QueueableCommand, cursor, terminal};
use kgadvise_core::diagnose::live::{
    LINE_REFRESH_S, LiveReport, LiveVerdict, REFRESH_S, STOP_HINT,
};

/// The view and where it is drawn.
pub struct LiveView {
    out: Box<dyn Write + Send>,
    /// Redraw in place (a terminal), or print plain lines.
    in_place: bool,
    /// Lines of the view on the screen now (0: erased).
    drawn: u16,
    last_draw: Option<Instant>,
    /// Samples of the report drawn last.
    drawn_samples: u64,
}

/// The view shared by the sampling loop and the watched command's output threads.
pub type SharedView = Arc<Mutex<LiveView>>;

impl LiveView {
    /// On stdout, or on stderr (with `--json`, whose stdout is one JSON object).
    pub fn new(on_stderr: bool) -> LiveView {
        let (out, in_place): (Box<dyn Write + Send>, bool) = if on_stderr {
            (Box::new(std::io::stderr()), std::io::stderr().is_terminal())
        } else {
            (Box::new(std::io::stdout()), std::io::stdout().is_terminal())
        };
        LiveView {
            out,
            in_place,
            drawn: 0,
            last_draw: None,
            drawn_samples: 0,
        }
    }

    pub fn shared(self) -> SharedView {
        Arc::new(Mutex::new(self))
    }

    /// Whether a refresh is due (every [`REFRESH_S`] seconds in place, [`LINE_REFRESH_S`] as lines; the
    /// first at once).
    pub fn due(&self) -> bool {
        let every = if self.in_place {
            REFRESH_S
        } else {
            LINE_REFRESH_S
        };
        self.last_draw
            .is_none_or(|t| t.elapsed() >= Duration::from_secs_f64(every))
    }

    /// Draws the report: in place on a terminal, else as one line.
    pub fn draw(&mut self, report: &LiveReport) {
        self.last_draw = Some(Instant::now());
        self.drawn_samples = report.samples;
        if !self.in_place {
            let _ = writeln!(self.out, "{}", report.line());
            let _ = self.out.flush();
            return;
        }
        self.erase();
        // A terminal that reports no size (0 x 0) is drawn as a common one.
        let (cols, rows) = match terminal::size() {
            Ok((c, r)) if c > 0 && r > 0 => (c, r),
            _ => (100, 40),
        };
        let text = format!("{}\n{STOP_HINT}\n", report.view_text());
        let lines = fit(&text, cols, rows);
        for line in &lines {
            let _ = writeln!(self.out, "{line}");
        }
        self.drawn = lines.len() as u16;
        let _ = self.out.flush();
    }

    /// Removes the view from the screen (nothing off a terminal).
    pub fn erase(&mut self) {
        if self.in_place && self.drawn > 0 {
            let _ = self.out.queue(cursor::MoveToPreviousLine(self.drawn));
            let _ = self
                .out
                .queue(terminal::Clear(terminal::ClearType::FromCursorDown));
            self.drawn = 0;
        }
    }

    /// An alarm, printed once above the view; the view is redrawn with the next report.
    pub fn alarm(&mut self, verdict: &LiveVerdict) {
        self.erase();
        let _ = writeln!(self.out, "{}", verdict.alarm_text());
        let _ = self.out.flush();
        self.last_draw = None;
    }

    /// A line of the watched command's output, above the view.
    pub fn passthrough(&mut self, bytes: &[u8], to_stderr: bool) {
        self.erase();
        let _ = self.out.flush();
        // The command's stderr stays stderr; on a terminal both land on the same screen.
        let _ = if to_stderr {
            std::io::stderr().lock().write_all(bytes)
        } else {
            std::io::stdout().lock().write_all(bytes)
        };
        self.last_draw = None;
    }

    /// Ends the view before the final report, drawn last with what it has not shown yet (a terminal
    /// keeps it).
    pub fn close(&mut self, report: &LiveReport) {
        if report.samples > self.drawn_samples
            || (self.in_place && self.drawn == 0 && report.samples > 0)
        {
            self.draw(report);
        }
        self.drawn = 0;
        let _ = self.out.flush();
    }
}

/// The view's lines as the screen can hold them: a line wider than the terminal goes on over the next
/// lines (broken at a space where it can be, indented), so a verdict's evidence is read whole rather than
/// cut; at most one screen less a line, so the cursor can come back to the view's top to redraw it.
fn fit(text: &str, cols: u16, rows: u16) -> Vec<String> {
    let width = usize::from(cols.saturating_sub(1).max(8));
    const INDENT: &str = "    ";
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest: Vec<char> = line.chars().collect();
        let mut first = true;
        loop {
            let room = if first { width } else { width - INDENT.len() };
            let prefix = if first { "" } else { INDENT };
            if rest.len() <= room {
                out.push(format!("{prefix}{}", rest.iter().collect::<String>()));
                break;
            }
            // break after the last space that fits, else mid-word
            let at = rest[..room]
                .iter()
                .rposition(|c| *c == ' ')
                .filter(|&i| i > 0)
                .map_or(room, |i| i + 1);
            let piece: String = rest[..at].iter().collect();
            out.push(format!("{prefix}{}", piece.trim_end()));
            rest.drain(..at);
            first = false;
        }
    }
    out.truncate(usize::from(rows.saturating_sub(1).max(1)));
    out
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_long_line_goes_on_over_the_next_lines_and_the_view_keeps_to_the_screen() {
        let text = "short\n  [settled] second-gpu-idle - GPU 1 idle (0.5 quota h per hour): GPU 1 at 0 % since 00:00:40\n";
        let lines = fit(text, 41, 40);
        assert_eq!(
            lines,
            [
                "short",
                "  [settled] second-gpu-idle - GPU 1",
                "    idle (0.5 quota h per hour): GPU 1",
                "    at 0 % since 00:00:40",
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 40));
        assert_eq!(fit(text, 41, 3).len(), 2);
        let word = "x".repeat(100);
        assert!(fit(&word, 41, 40).iter().all(|l| l.chars().count() <= 40));
    }
}
