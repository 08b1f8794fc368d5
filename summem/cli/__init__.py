"""The ``summem`` command line: replay transcripts, inspect sessions, chat with a model.

``app`` defines the commands; each command's work lives in its own module (``replay``,
``sessions``, ``chat``), with ``transcript`` reading input files, ``render`` printing, and
``common`` the settings, exit codes and error handling they share. Heavy dependencies (the
openai SDK, litellm, redis) are imported only by the command that needs them.
"""
