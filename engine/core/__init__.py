"""The small core every layer uses: errors, safe YAML and file reading, closed vocabularies (terms), limits, paths and caches."""
