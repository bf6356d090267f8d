"""A reader of tensorstore's OCDBT key-value stores ("Optionally-Cooperative Distributed B+Tree"),
the format Orbax writes each checkpoint item in, without tensorstore: the keys of the latest
version, and the values of the keys asked for. ``tpuemb_cli.load.orbax_store`` is its one user;
it says what is read and what is not.

One module per record: ``cursor`` (bounded reads of the fields), ``envelope`` (the header,
CRC-32C and compression every record shares), ``files`` (the store's files, within its directory
and a budget), ``references`` (data file tables and references into them), ``manifest`` (the
latest version), ``btree`` (the walk from the root to every key).
"""
