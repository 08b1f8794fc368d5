"""Reducers."""
