"""Graph rules: the ops of a ``GraphDef`` or ``SavedModel`` that consume embedding configs."""
