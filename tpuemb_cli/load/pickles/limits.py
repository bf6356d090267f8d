"""How much of a pickle ``load.pickles`` reads: each bound named in the package's docstring.
Read as ``limits.NAME`` where it is used, so that a test can lower one."""

# Measured on this project's 2-core machine (under load) with torch 2.13's ``Metadata`` of 20,000
# tensors of 4 chunks each plus its storage_data: 10 MB, 5.2 million opcodes (260 a tensor),
# walked and measured in about 27 s -- some 5 us an opcode. MAX_OPCODES is half as much again:
# about 30,000 such tensors (an embedding checkpoint holds a few hundred), 40 s at the most.
MAX_OPCODES = 8_000_000
# An opcode is one to a few bytes but for strings: 64 MiB holds MAX_OPCODES and long names.
MAX_INPUT_BYTES = 64 * 1024 * 1024
MAX_ITEMS = MAX_OPCODES
# MARKs open at once: one a container being filled, so the nesting of the pickled data.
MAX_MARKS = 1000
MAX_MEMO = MAX_OPCODES
MAX_STRING_BYTES = 16 * 1024 * 1024
# 1,024 bytes is a 2,466-digit number; DCP writes none larger than a tensor's size.
MAX_LONG_BYTES = 1024
# 4,096 keys that all collide take about 0.3 s to insert; a DCP .metadata has none (its keys are
# strings and objects).
MAX_HASH_CHOSEN_KEYS = 4096
# The value written out as a tree: what a reader walking it visits. A DCP .metadata shares
# strings and class references, which count one each, so its tree is about its opcode count.
MAX_NODES = 2 * MAX_OPCODES
# Nesting of tuples (while walked) and of the value (after): DCP's is under 10.
MAX_DEPTH = 200
