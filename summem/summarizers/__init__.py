"""Summarizers."""
