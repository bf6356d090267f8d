"""Checkpoint compatibility: what a config change does to a checkpoint written under the old
config, one rule per kind of change. ``tpuemb diff`` reports them (``compat`` finds the changes);
``tpuemb check`` never does."""
