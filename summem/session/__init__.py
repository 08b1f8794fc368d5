"""What ``Memory`` and ``AsyncMemory`` run on: the cached view, the policy, and the flows.

``core`` keeps the cached view and decides when and how far to reduce (pure, thread-safe);
``plan`` and ``usage`` are its value objects; ``flows``, ``branching`` (edits, regenerates,
rewinds, pops), ``recording`` (``record()``: what a list passed again adds, or where it
branches, decided by ``recorded``) and ``export`` are the store and summarizer sequences,
written once for both facades; ``facade`` is what the two facades share; ``worker`` is the
thread behind ``Memory``'s background reductions.
"""
