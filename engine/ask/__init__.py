"""Questions in English or Chinese: parsed into a scenario or a look-up, and answered."""
