"""Reasoning: the expression language, rules compiled to durable_rules (its one host module), the reasoner and provenance."""
