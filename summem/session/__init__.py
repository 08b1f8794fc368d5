"""What ``Memory`` and ``AsyncMemory`` run on: the cached view, the policy, and the flows.

``core`` keeps the cached view and decides when and how far to reduce (pure, thread-safe);
``plan`` and ``usage`` are its value objects; ``flows`` and ``export`` are the store and
summarizer sequences, written once for both facades; ``facade`` is what the two facades share;
``worker`` is the thread behind ``Memory``'s background reductions.
"""
