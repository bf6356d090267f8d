"""Statistics rules: a document's input limits against the statistics measured for its stacks
(run only when statistics are given: ``--stats``, ``stats`` in the settings)."""
