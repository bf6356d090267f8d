"""``tpuemb server``: the language server (LSP over stdio), for editors.

The LSP side -- the only code that imports pygls and lsprotocol (the optional ``server`` extra):

- ``protocol``: ``HANDLERS``, the registry of every request and notification handled, and
  ``build()``, which registers each with pygls;
- ``requests/`` and ``notifications/``: one module per LSP method (``METHOD``, ``OPTIONS``,
  ``handle``), as ``ruff_server`` keeps them;
- ``session``: the server's state (the open documents' lints, the linter on its worker thread,
  the debounce) and publishing diagnostics;
- ``handshake``: ``serve()`` -- ``initialize`` answered before pygls is imported, then pygls
  on standard input and output;
- ``rpc``: the JSON-RPC rules pygls leaves to the server -- an answer to every request (params
  that do not fit, before ``initialize``, after ``shutdown``) and the exit status;
- ``diagnostics``: findings as LSP diagnostics; ``edits``: tpuemb's edits as LSP's.

The rest is plain Python over the same layers ``tpuemb check`` uses, so it is tested without an
editor:

- ``linting``: one open document in, its Document and findings out -- configuration discovery,
  loading, the engine and suppressions exactly as ``check`` does them;
- ``positions``: character offsets and the editor's line/character positions (UTF-16 by default);
- ``actions``: the code actions a finding offers (its fix, a suppression comment, fix all);
- ``assist``: hover and completion at an offset, from where the cursor is in the document's
  schema (``load.cursor`` reads that from text that may not parse yet);
- ``schema_help``: hover text and completions from the message descriptors;
- ``scheduler``: the debounce that keeps typing from queueing lints.
"""
