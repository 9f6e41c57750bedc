//! `PRIORITYF` node priority functions (guide 5.2.2.4, MAUI-SEMANTICS §5): a sum of
//! terms `{+|-}* [coefficient] [*] NAME`, the coefficient 1 when omitted and the term
//! negative when it carries an odd number of `-`. Hand-written so that every error can
//! point at its column.

use std::fmt;

/// The node attributes a priority function may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeVar {
    /// Local disk available now.
    ADisk,
    AMem,
    /// Processors available now (configured − dedicated).
    AProcs,
    ASwap,
    CDisk,
    CMem,
    CProcs,
    CSwap,
    /// Jobs running on the node.
    JobCount,
    Load,
    /// 1 when the node has every feature the job prefers (and it prefers some).
    Pref,
    Priority,
    /// Affinity to a reservation the job may use: 0 (no standing reservations carry it).
    ResAffinity,
    /// SPEED if configured, else PROCSPEED.
    Speed,
    /// Share of time the node has run jobs since the run began, 0–1.
    Usage,
}

impl NodeVar {
    pub const COUNT: usize = 15;
    pub const ALL: [NodeVar; NodeVar::COUNT] = [
        NodeVar::ADisk,
        NodeVar::AMem,
        NodeVar::AProcs,
        NodeVar::ASwap,
        NodeVar::CDisk,
        NodeVar::CMem,
        NodeVar::CProcs,
        NodeVar::CSwap,
        NodeVar::JobCount,
        NodeVar::Load,
        NodeVar::Pref,
        NodeVar::Priority,
        NodeVar::ResAffinity,
        NodeVar::Speed,
        NodeVar::Usage,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            NodeVar::ADisk => "ADISK",
            NodeVar::AMem => "AMEM",
            NodeVar::AProcs => "APROCS",
            NodeVar::ASwap => "ASWAP",
            NodeVar::CDisk => "CDISK",
            NodeVar::CMem => "CMEM",
            NodeVar::CProcs => "CPROCS",
            NodeVar::CSwap => "CSWAP",
            NodeVar::JobCount => "JOBCOUNT",
            NodeVar::Load => "LOAD",
            NodeVar::Pref => "PREF",
            NodeVar::Priority => "PRIORITY",
            NodeVar::ResAffinity => "RESAFFINITY",
            NodeVar::Speed => "SPEED",
            NodeVar::Usage => "USAGE",
        }
    }

    fn from_name(s: &str) -> Option<NodeVar> {
        NodeVar::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
    }
}

/// Values of every [`NodeVar`] for one node, indexed by the variable.
pub type NodeVars = [f64; NodeVar::COUNT];

/// A parsed priority function.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorityFn {
    terms: Vec<(f64, NodeVar)>,
    text: String,
}

/// A priority function that does not parse, with the 1-based column of the fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorityFnError {
    pub column: usize,
    pub message: String,
}

impl fmt::Display for PriorityFnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for PriorityFnError {}

impl PriorityFn {
    pub fn parse(text: &str) -> Result<PriorityFn, PriorityFnError> {
        let bytes = text.as_bytes();
        let mut pos = 0;
        let mut terms = Vec::new();
        let skip_space = |pos: &mut usize| {
            while *pos < bytes.len() && bytes[*pos].is_ascii_whitespace() {
                *pos += 1;
            }
        };
        let err = |pos: usize, message: String| PriorityFnError {
            column: pos + 1,
            message,
        };
        loop {
            skip_space(&mut pos);
            if pos >= bytes.len() {
                if terms.is_empty() {
                    return Err(err(pos, "the priority function is empty".into()));
                }
                break;
            }
            // Signs.
            let mut negative = false;
            let mut had_sign = false;
            while pos < bytes.len() && matches!(bytes[pos], b'+' | b'-' | b' ' | b'\t') {
                if bytes[pos] == b'-' {
                    negative = !negative;
                }
                had_sign |= bytes[pos] != b' ' && bytes[pos] != b'\t';
                pos += 1;
            }
            if !terms.is_empty() && !had_sign {
                return Err(err(pos, "expected '+' or '-' between terms".into()));
            }
            // Coefficient.
            let number_at = pos;
            while pos < bytes.len() && (bytes[pos].is_ascii_digit() || bytes[pos] == b'.') {
                pos += 1;
            }
            let coefficient = if pos > number_at {
                text[number_at..pos].parse::<f64>().map_err(|_| {
                    err(
                        number_at,
                        format!("'{}' is not a number", &text[number_at..pos]),
                    )
                })?
            } else {
                1.0
            };
            skip_space(&mut pos);
            if pos < bytes.len() && bytes[pos] == b'*' {
                if pos == number_at {
                    return Err(err(pos, "'*' needs a number before it".into()));
                }
                pos += 1;
                skip_space(&mut pos);
            }
            let name_at = pos;
            while pos < bytes.len() && (bytes[pos].is_ascii_alphanumeric() || bytes[pos] == b'_') {
                pos += 1;
            }
            if pos == name_at {
                let what = match bytes.get(pos) {
                    None => "the end".to_string(),
                    Some(c) => format!("'{}'", *c as char),
                };
                return Err(err(
                    name_at,
                    format!("expected a node attribute name, found {what}"),
                ));
            }
            let name = &text[name_at..pos];
            let Some(var) = NodeVar::from_name(name) else {
                let known: Vec<&str> = NodeVar::ALL.iter().map(|v| v.name()).collect();
                return Err(err(
                    name_at,
                    format!(
                        "unknown node attribute '{name}' (known: {})",
                        known.join(" ")
                    ),
                ));
            };
            terms.push((if negative { -coefficient } else { coefficient }, var));
        }
        Ok(PriorityFn {
            terms,
            text: text.to_string(),
        })
    }

    pub fn eval(&self, vars: &NodeVars) -> f64 {
        self.terms.iter().map(|&(c, v)| c * vars[v as usize]).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(s: &str) -> Vec<(f64, NodeVar)> {
        PriorityFn::parse(s).unwrap().terms
    }

    #[test]
    fn the_guide_examples_parse_as_written() {
        assert_eq!(
            terms("SPEED+ .01 * AMEM - 10 * JOBCOUNT"),
            vec![
                (1.0, NodeVar::Speed),
                (0.01, NodeVar::AMem),
                (-10.0, NodeVar::JobCount)
            ]
        );
        assert_eq!(
            terms("-LOAD - 5*USAGE"),
            vec![(-1.0, NodeVar::Load), (-5.0, NodeVar::Usage)]
        );
        assert_eq!(
            terms("PRIORITY + APROCS"),
            vec![(1.0, NodeVar::Priority), (1.0, NodeVar::AProcs)]
        );
        assert_eq!(terms("JOBCOUNT"), vec![(1.0, NodeVar::JobCount)]);
        assert_eq!(
            terms("5 * PREF - LOAD"),
            vec![(5.0, NodeVar::Pref), (-1.0, NodeVar::Load)]
        );
    }

    #[test]
    fn signs_multiply_and_the_star_is_optional() {
        assert_eq!(terms("--3CPROCS"), vec![(3.0, NodeVar::CProcs)]);
        assert_eq!(terms("+-+2 cmem"), vec![(-2.0, NodeVar::CMem)]);
    }

    #[test]
    fn errors_point_at_the_column() {
        let e = PriorityFn::parse("SPEED + FOO").unwrap_err();
        assert_eq!(e.column, 9);
        assert!(e.message.contains("unknown node attribute 'FOO'"), "{e}");
        let e = PriorityFn::parse("SPEED +").unwrap_err();
        assert_eq!(e.column, 8);
        assert!(e.message.contains("found the end"), "{e}");
        let e = PriorityFn::parse("SPEED AMEM").unwrap_err();
        assert_eq!(e.column, 7);
        let e = PriorityFn::parse("* AMEM").unwrap_err();
        assert_eq!(e.column, 1);
        let e = PriorityFn::parse("1.2.3 AMEM").unwrap_err();
        assert_eq!(e.column, 1);
        assert_eq!(PriorityFn::parse("  ").unwrap_err().column, 3);
        let e = PriorityFn::parse("SPEED - * 2").unwrap_err();
        assert_eq!(e.column, 9);
    }

    #[test]
    fn evaluates_the_sum_of_terms() {
        let f = PriorityFn::parse("SPEED + .01*AMEM - 10*JOBCOUNT").unwrap();
        let mut vars = [0.0; NodeVar::COUNT];
        vars[NodeVar::Speed as usize] = 2.0;
        vars[NodeVar::AMem as usize] = 1000.0;
        vars[NodeVar::JobCount as usize] = 1.0;
        assert_eq!(f.eval(&vars), 2.0 + 10.0 - 10.0);
    }
}
