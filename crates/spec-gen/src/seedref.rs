//! The machine-readable seed citation in `source` lines: `seed 004 §3.2.1.2 L2862-3033`.

/// A parsed seed citation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRef {
    /// Seed number, e.g. "004".
    pub seed: String,
    /// Section, e.g. "3.2.1.2" (may be empty).
    pub section: String,
    /// First line (1-based).
    pub first: usize,
    /// Last line (inclusive).
    pub last: usize,
}

/// Finds the first `seed NNN [§x] Lfirst-last` in a source text.
pub fn parse(source: &str) -> Option<SeedRef> {
    let lower = source.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find("seed ") {
        let at = from + p + 5;
        from = at;
        let rest = &source[at..];
        let mut words = rest.split_whitespace();
        let seed = words.next()?;
        if seed.len() != 3 || !seed.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let mut section = String::new();
        for w in words.by_ref().take(3) {
            if let Some(s) = w.strip_prefix('§') {
                section = s.trim_end_matches([',', ';']).to_string();
                continue;
            }
            if let Some(l) = w.strip_prefix('L') {
                let l = l.trim_end_matches([',', ';', ')', '.']);
                let (a, b) = l.split_once('-')?;
                let (first, last) = (a.parse().ok()?, b.parse().ok()?);
                if first == 0 || last < first {
                    return None;
                }
                return Some(SeedRef {
                    seed: seed.to_string(),
                    section,
                    first,
                    last,
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_citation_forms() {
        let r = parse("seed 004 §3.2.1.2 L2862-3033").unwrap();
        assert_eq!(
            (r.seed.as_str(), r.section.as_str(), r.first, r.last),
            ("004", "3.2.1.2", 2862, 3033)
        );
        let r = parse("Mesa gen7.xml; seed 000 L10-20 (names)").unwrap();
        assert_eq!((r.first, r.last), (10, 20));
        assert!(parse("seed 004 §1.3 (table lost)").is_none());
        assert!(parse("seed 004 L30-20").is_none());
    }
}
