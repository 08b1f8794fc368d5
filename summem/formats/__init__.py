"""Conversations in other shapes, read into summem's chat messages."""
