"""The notifications the editor sends, one module each, in the shape of ``requests/``: ``METHOD``,
``OPTIONS`` and ``handle(ls, params)``, listed in ``server.protocol.HANDLERS``."""
