//! `mauisim inspect`: a run stopped at one instant, seen as Maui's diagnostics would show
//! it. One module per view, named by the verb: `priority` (`diagnose -p`), `blocked`
//! (`checkjob`, `diagnose -q`), `fairshare` (`diagnose -f`), `windows` (`showbf`) and
//! `gantt` (the node-time picture, also drawn for scenarios).

pub mod blocked;
pub mod fairshare;
pub mod gantt;
pub mod priority;
pub mod windows;
