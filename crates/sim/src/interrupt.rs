//! Interrupted runs (Ctrl-C) leave complete outputs or none: every staging path (a
//! directory or a temporary file being written) is registered while it exists, and the
//! moves that publish outputs happen under a lock the interrupt handler takes too. The
//! handler ([`abandon`]) waits for a publication in progress, removes what is still
//! staged and exits.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static PUBLISHING: Mutex<()> = Mutex::new(());
/// Set once [`abandon`] ran: nothing may be staged or published any more.
static ABANDONED: AtomicBool = AtomicBool::new(false);

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    // A panic elsewhere while holding the lock leaves the list usable.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A staging path, removed by [`abandon`] until dropped (published or cleaned up).
pub struct Staged {
    path: PathBuf,
}

impl Staged {
    pub(crate) fn new(path: &Path) -> Staged {
        if ABANDONED.load(Ordering::SeqCst) {
            // The process is exiting: wait for it rather than stage anything new.
            let _forever = publishing();
        }
        lock(&STAGED).push(path.to_path_buf());
        Staged {
            path: path.to_path_buf(),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        let mut staged = lock(&STAGED);
        if let Some(k) = staged.iter().rposition(|p| *p == self.path) {
            staged.swap_remove(k);
        }
    }
}

/// Held while staged outputs are moved into place: an interrupt waits for the moves.
pub(crate) fn publishing() -> MutexGuard<'static, ()> {
    lock(&PUBLISHING)
}

/// What an interrupt handler does: waits for any publication in progress, then removes
/// every staged path. The returned guard keeps every later publication waiting: the caller
/// must exit while holding it (`std::process::exit` runs no destructor).
#[must_use = "exit while holding the guard"]
pub fn abandon() -> MutexGuard<'static, ()> {
    let publishing = publishing();
    ABANDONED.store(true, Ordering::SeqCst);
    for path in lock(&STAGED).drain(..) {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(&path);
        } else {
            let _ = std::fs::remove_file(&path);
        }
    }
    publishing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abandon_removes_what_is_staged_and_nothing_published() {
        let dir = tempfile::tempdir().unwrap();
        let (kept, dropped) = (dir.path().join("kept"), dir.path().join(".staging"));
        std::fs::create_dir(&kept).unwrap();
        std::fs::create_dir(&dropped).unwrap();
        std::fs::write(dropped.join("jobs.csv"), "partial").unwrap();
        {
            let _published = Staged::new(&kept);
        }
        let _staged = Staged::new(&dropped);
        let hold = abandon();
        assert!(kept.exists());
        assert!(!dropped.exists());
        assert!(
            PUBLISHING.try_lock().is_err(),
            "publications wait for the exit"
        );
        drop(hold);
        ABANDONED.store(false, Ordering::SeqCst);
    }
}
