"""The KB: loading and validating its YAML, the vocabulary and alias lexicon, releases, records and reference facts."""
