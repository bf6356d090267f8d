"""The views of ``tpuemb explain``: what a document holds (``explain``, dispatching to one module
per kind of document: ``config_table``, ``sparsecore``, ``jax_spec``, ``keras``) and what it costs
in memory (``memory``, ``sparsecore_memory``, ``jax_memory`` and ``keras``'s memory parts, for
``--memory``). Report formats (``check``'s and ``diff``'s) live in ``formatters``; a view is not
one. Each view is a module of its own, so that it can move into its front-end's package."""
