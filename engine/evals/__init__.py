"""gpukb measured against its labelled gold sets (kb/gold/): questions, audit, check, extraction, real passages, reference."""
