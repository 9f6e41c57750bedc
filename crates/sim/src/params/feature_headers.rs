//! What Maui 3.3.1 reads from the names of a node's features (MNode.c
//! `MNodeProcessFeature`): FEATUREPROCSPEEDHEADER and FEATUREPARTITIONHEADER, and the
//! `xm..ML<load>` feature that sets a node's MAXLOAD. 3.3.1 looks at the features a
//! resource manager reports, which in its simulation are the resource trace's
//! (MTrace.c); NODECFG's FEATURES never pass through it.

use super::node_cfg::NodeCfg;
use mauisim_config::Location;

/// The feature-name headers as written, with where.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeatureHeaders {
    pub proc_speed: Option<(String, Location)>,
    pub partition: Option<(String, Location)>,
}

impl FeatureHeaders {
    /// The headers set (a header of no text is none, as in 3.3.1), with where.
    pub(crate) fn set(&self) -> impl Iterator<Item = (&'static str, &Location)> {
        [
            ("FEATUREPROCSPEEDHEADER", &self.proc_speed),
            ("FEATUREPARTITIONHEADER", &self.partition),
        ]
        .into_iter()
        .filter_map(|(name, h)| {
            h.as_ref()
                .filter(|(t, _)| !t.is_empty())
                .map(|(_, at)| (name, at))
        })
    }

    /// Applies to `cfg` what its features' names say, feature by feature in list order
    /// (a later one wins). A partition named by a number is 3.3.1's old-style partition
    /// index, which mauisim does not simulate: an error naming the feature.
    pub(crate) fn apply(&self, node: &str, cfg: &mut NodeCfg) -> Result<(), String> {
        let features = cfg.features.clone().unwrap_or_default();
        for feature in &features {
            if let Some(speed) = self.proc_speed_of(feature) {
                cfg.procspeed = Some(speed.max(0) as u64);
            }
            if let Some(name) = self.partition_of(feature) {
                if name.starts_with(|c: char| c.is_ascii_digit()) {
                    return Err(format!(
                        "node {node}: feature `{feature}` (FEATUREPARTITIONHEADER) names partition `{name}` by number, Maui 3.3.1's old-style partition index, which mauisim does not simulate: name the partition"
                    ));
                }
                cfg.partition = Some(name.to_string());
            }
            // `xm` and two characters, then `ML` and the limit.
            if feature.starts_with("xm") && feature.as_bytes().get(4..6) == Some(b"ML") {
                cfg.max_load = Some(c_strtod(&feature[6..]));
            }
        }
        Ok(())
    }

    /// The processor speed `feature` gives: after the header, or, for a header ending in
    /// `$`, after the header's text where a digit follows it.
    fn proc_speed_of(&self, feature: &str) -> Option<i64> {
        let (header, _) = self.proc_speed.as_ref().filter(|(h, _)| !h.is_empty())?;
        if let Some(stem) = header.strip_suffix('$') {
            let rest = feature.strip_prefix(stem);
            if let Some(rest) = rest.filter(|r| r.starts_with(|c: char| c.is_ascii_digit())) {
                return Some(c_strtol(rest));
            }
        }
        feature.strip_prefix(header.as_str()).map(c_strtol)
    }

    /// The partition `feature` puts its node in: its name after the header (an empty one
    /// adds none: 3.3.1's `MParAdd` fails on it).
    fn partition_of<'a>(&self, feature: &'a str) -> Option<&'a str> {
        let (header, _) = self.partition.as_ref().filter(|(h, _)| !h.is_empty())?;
        feature
            .strip_prefix(header.as_str())
            .filter(|name| !name.is_empty())
    }
}

/// C's `strtol(text, NULL, 0)`: leading blanks, a sign, `0x` for hexadecimal and a
/// leading `0` for octal, then the digits up to the first other character; 0 without
/// any, the nearest bound past 64 bits.
pub(crate) fn c_strtol(text: &str) -> i64 {
    let t = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let hex = t.len() > 2
        && (t.starts_with("0x") || t.starts_with("0X"))
        && t.as_bytes()[2].is_ascii_hexdigit();
    let (radix, digits) = if hex {
        (16, &t[2..])
    } else if t.starts_with('0') {
        (8, t)
    } else {
        (10, t)
    };
    let mut value: i128 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        value = (value * i128::from(radix) + i128::from(d)).min(i128::from(i64::MAX) + 1);
    }
    let value = if negative { -value } else { value };
    value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// C's `strtod(text, NULL)` for decimal numbers: the longest prefix after leading blanks
/// that reads as one (sign, digits, a point, an exponent); 0 without any.
pub(crate) fn c_strtod(text: &str) -> f64 {
    let t = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    (1..=t.len())
        .rev()
        .filter(|&end| t.is_char_boundary(end))
        .find_map(|end| {
            let prefix = &t[..end];
            let plain = prefix
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
            plain.then(|| prefix.parse::<f64>().ok()).flatten()
        })
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(speed: &str, partition: &str) -> FeatureHeaders {
        let at = Location::new("maui.cfg", 1, 1);
        FeatureHeaders {
            proc_speed: Some((speed.to_string(), at.clone())),
            partition: Some((partition.to_string(), at)),
        }
    }

    fn applied(h: &FeatureHeaders, features: &[&str]) -> Result<NodeCfg, String> {
        let mut cfg = NodeCfg {
            features: Some(features.iter().map(|f| f.to_string()).collect()),
            ..NodeCfg::default()
        };
        h.apply("n1", &mut cfg).map(|()| cfg)
    }

    /// `strtol(.., 0)` and `strtod` as C reads them: prefixes, bases, nothing to read.
    #[test]
    fn numbers_are_read_as_c_reads_them() {
        assert_eq!(c_strtol("2400"), 2400);
        assert_eq!(c_strtol("2400mhz"), 2400);
        assert_eq!(c_strtol("0x1f"), 31);
        assert_eq!(c_strtol("017"), 15);
        assert_eq!(c_strtol("09"), 0);
        assert_eq!(c_strtol(" -12"), -12);
        assert_eq!(c_strtol("fast"), 0);
        assert_eq!(c_strtol("0x"), 0);
        assert_eq!(c_strtol("99999999999999999999999"), i64::MAX);
        assert_eq!(c_strtod("2.5"), 2.5);
        assert_eq!(c_strtod("3e1x"), 30.0);
        assert_eq!(c_strtod("1.5.2"), 1.5);
        assert_eq!(c_strtod("high"), 0.0);
    }

    /// The speed after the header (the last feature that has one wins), the `$` form
    /// where a digit follows, the partition after its header, and `xm..ML` as MAXLOAD.
    #[test]
    fn features_give_speed_partition_and_load() {
        let h = headers("speed", "part_");
        let cfg = applied(&h, &["fast", "speed2000", "part_gpu", "speed2400"]).unwrap();
        assert_eq!(cfg.procspeed, Some(2400));
        assert_eq!(cfg.partition.as_deref(), Some("gpu"));
        let cfg = applied(&h, &["speedy", "part_", "xmabML2.5"]).unwrap();
        assert_eq!(
            cfg.procspeed,
            Some(0),
            "`speedy` reads as 0, as strtol has it"
        );
        assert_eq!(cfg.partition, None, "an empty partition name adds none");
        assert_eq!(cfg.max_load, Some(2.5));
        let dollar = headers("s$", "");
        assert_eq!(applied(&dollar, &["s300"]).unwrap().procspeed, Some(300));
        assert_eq!(applied(&dollar, &["sx300"]).unwrap().procspeed, None);
        assert_eq!(applied(&dollar, &["s$300"]).unwrap().procspeed, Some(300));
        assert_eq!(applied(&dollar, &["part_a"]).unwrap().partition, None);
        let e = applied(&h, &["part_2"]).unwrap_err();
        assert!(
            e.contains("feature `part_2` (FEATUREPARTITIONHEADER) names partition `2` by number"),
            "{e}"
        );
    }
}
