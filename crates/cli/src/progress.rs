//! What a long `mauisim run` shows while it works (on a terminal, unless --quiet): the
//! records read so far while reading, a bar over the simulated time while simulating, the
//! jobs written while generating, and a spinner while writing.

use indicatif::{ProgressBar, ProgressStyle};
use mauisim_core::Time;
use mauisim_sim::engine::{CLOCK, COUNTED};
use mauisim_sim::units::clock;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The phases of one run, on one line of stderr.
pub struct RunProgress {
    bar: Option<ProgressBar>,
    poller: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
}

impl RunProgress {
    /// Starts with a spinner saying `what` (hidden with `quiet` or without a terminal).
    pub fn new(quiet: bool, what: &str) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_message(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        RunProgress { bar, poller: None }
    }

    /// Counts `noun`s as the reader or the generator makes them: a bar up to `total` when
    /// it is known, else the count beside a spinner.
    pub fn counting(&mut self, what: &str, noun: &'static str, total: Option<u64>) {
        let Some(bar) = self.bar.clone() else {
            return;
        };
        self.stop_polling();
        let template = match total {
            Some(total) => {
                bar.set_length(total);
                format!("{what} {{bar:30}} {{human_pos}}/{{human_len}} {noun}  ETA {{eta}}")
            }
            None => format!("{{spinner}} {what}  {{human_pos}} {noun}"),
        };
        bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
        bar.set_position(0);
        COUNTED.store(0, Ordering::Relaxed);
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let poll = std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                bar.set_position(COUNTED.load(Ordering::Relaxed));
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        self.poller = Some((done, poll));
    }

    /// A bar over the simulated time from `first` to `last` (the trace's submissions;
    /// `None` when unknown, as in a streamed run: then the simulated instant only).
    pub fn simulating(&mut self, span: Option<(Time, Time)>) {
        self.simulating_until(span, "of the trace's time");
    }

    /// [`Self::simulating`] with what the bar's percentage is `of`.
    pub fn simulating_until(&mut self, span: Option<(Time, Time)>, of: &str) {
        let Some(bar) = self.bar.clone() else {
            return;
        };
        self.stop_polling();
        let (first, length) = match span {
            Some((first, last)) => (first, (last - first).max(1) as u64),
            None => (0, 0),
        };
        if span.is_some() {
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "simulating {{bar:30}} {{percent:>3}}% {of}  ETA {{eta}}  {{msg}}"
                ))
                .expect("a valid template"),
            );
            bar.set_length(length);
        } else {
            bar.set_style(
                ProgressStyle::with_template("{spinner} simulating  {msg}")
                    .expect("a valid template"),
            );
        }
        bar.set_message("");
        CLOCK.store(Time::MIN, Ordering::Relaxed);
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let poll = std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let now = CLOCK.load(Ordering::Relaxed);
                if now != Time::MIN {
                    if span.is_some() {
                        bar.set_position(((now - first).max(0) as u64).min(length));
                    }
                    bar.set_message(format!("at {}", clock(now - first)));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        self.poller = Some((done, poll));
    }

    /// Prints a line above the progress line (a warning while reading, say).
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// Back to a spinner saying `what`.
    pub fn phase(&mut self, what: &str) {
        self.stop_polling();
        if let Some(bar) = &self.bar {
            bar.set_style(ProgressStyle::default_spinner());
            bar.set_message(what.to_string());
        }
    }

    /// Clears the line (before the summary is printed).
    pub fn finish(mut self) {
        self.stop_polling();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn stop_polling(&mut self) {
        if let Some((done, poll)) = self.poller.take() {
            done.store(true, Ordering::Relaxed);
            let _ = poll.join();
        }
    }
}

impl Drop for RunProgress {
    fn drop(&mut self) {
        self.stop_polling();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
