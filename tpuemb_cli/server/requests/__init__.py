"""The requests the editor sends and tpuemb answers, one module each (as ``ruff_server`` keeps
them): its LSP ``METHOD``, the ``OPTIONS`` it declares in the server's capabilities (None for
most) and ``handle(ls, params)``, which pygls calls. ``server.protocol.HANDLERS`` lists them.
"""
