"""Seeing what a memory does and what it costs: events and hooks, prices, spend limits."""
