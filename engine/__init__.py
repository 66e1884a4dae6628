"""gpukb engine: KB loading and validation, rules compiled to durable_rules, provenance and answers."""

__version__ = "0.1.0"
