"""A/B comparison of two runs: match their points, bootstrap each figure's change over the
saved per-request samples (or the spread of repeated runs), call it better, worse or no
significant change, and gate CI on regressions (--fail-on). No Qt here."""
