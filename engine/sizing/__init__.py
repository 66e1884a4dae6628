"""Sizing: a scenario's memory, verdict, recommendations and error band, from the sizing rules."""
