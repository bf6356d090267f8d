"""The views of ``tpuemb explain``: what a document holds (``explain``, with one module per kind of
document: ``config_table``, ``sparsecore``, ``jax_spec``, ``keras``) and what it costs in memory
(``memory``: one renderer, text and JSON, for every front-end's memory model). Report formats
(``check``'s and ``diff``'s) live in ``formatters``; a view is not one."""
