"""Explanations: proof trees with labels, quotes and citations, why-not analysis, exports (text, DOT, PROV) and release diffs."""
