"""lib of the front-end (modules named for their layer)."""
