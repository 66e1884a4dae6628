"""The audit: every claim judged against the reference tier, the other sources and gpukb's own sizing, with its evidence."""
