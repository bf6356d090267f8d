"""Checkpoint compatibility: what a change from one embedding config to another does to a
checkpoint written under the old one (``tpuemb diff``).

TensorFlow's mid-level API names each table's variable after the table (``table.name``, or
``table_<i>`` by position for an unnamed one) and each optimizer slot ``<table>/<slot>``; a
checkpoint restores by those names and checks shapes, nothing else. So a change is classified by
what it does to those names and shapes (``kinds``), and to how the restored run trains.

- ``kinds``: the kinds of change and the change record;
- ``sides``: one side of a comparison (a config, or a spec and what it compiles to), its tables,
  and where a config field lies in the file;
- ``matching``: which new table is which old one (names, renames, shifted ``table_<i>``);
- ``tables``, ``fields``, ``features``, ``topology``: the comparisons (the slot variables each
  optimizer creates, as TensorFlow names them, are ``model.optimizers``');
- ``compare``: all of it, for two loaded documents;
- ``checkpoint``: a config or spec against the variables a checkpoint on disk holds
  (``load.checkpoint`` reads it);
- ``jax_entries``, ``jax_changes``, ``jax_training``, ``jax_specs``: jax-tpu-embedding's
  stacked layouts (``EmbeddingSpecProto``), whose checkpoints hold one entry per stack: what the
  entries are, what a change does to them and to training, and a spec's stacked layout
  (``compile --target jax``'s).
"""
