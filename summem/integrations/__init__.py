"""summem inside agent frameworks: each integration is a module of its own, loaded on use."""
