//! What is simulated: jobs from a trace (SWF or Maui's workload trace), turned into the
//! simulator's jobs by the config's rules, reshaped (window, filters, load), or generated.

pub mod accounts;
pub mod generate;
pub mod maui;
pub mod swf;
pub mod transform;
pub mod workload;
