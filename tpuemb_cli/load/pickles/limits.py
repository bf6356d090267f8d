"""How much of a pickle ``load.pickles`` reads: each bound named in the package's docstring.
Read as ``limits.NAME`` where it is used, so that a test can lower one."""

MAX_INPUT_BYTES = 256 * 1024 * 1024
# A DCP .metadata takes about 60 opcodes a tensor and 40 a chunk: this is ~100,000 sharded
# tensors, a few seconds of walking.
MAX_OPCODES = 16_000_000
MAX_ITEMS = MAX_OPCODES
MAX_MARKS = 1000
MAX_MEMO = MAX_OPCODES
MAX_STRING_BYTES = 64 * 1024 * 1024
MAX_LONG_BYTES = 1024
# 4,096 keys that all collide take about 0.3 s to insert; a DCP .metadata has none (its keys are
# strings and objects).
MAX_HASH_CHOSEN_KEYS = 4096
MAX_NODES = 2 * MAX_OPCODES
MAX_DEPTH = 200
