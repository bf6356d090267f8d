"""load of the front-end (modules named for their layer): the ids `tpuemb stats` reads."""
