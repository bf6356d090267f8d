"""The pickle machine's state -- the input read so far, the stack, the MARKs, the memo -- and
what its opcodes share: reading arguments, pushing and popping, filling containers, each bounded
and each failure a ``PickleError`` at the opcode's byte offset."""

from __future__ import annotations

import _compat_pickle

from tpuemb_cli.load.limits import INT_DIGITS
from tpuemb_cli.load.pickles import limits
from tpuemb_cli.load.pickles.records import Global, Object, PersistentId, PickleError, kind
from tpuemb_cli.model.words import printable


class Walker:
    """One walk of one pickle."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.name = name
        self.pos = 0
        self.at = 0
        self.stack: list[object] = []
        self.marks: list[list[object]] = []
        self.memo: dict[int, object] = {}
        self.chosen_keys = 0
        self.protocol = 0
        # id -> (the tuple or frozenset, how deep tuples and frozensets nest in it), holding
        # each so that its id is not reused.
        self.nesting: dict[int, tuple[object, int]] = {}
        self.done = False
        self.result: object = None

    def fail(self, why: str) -> PickleError:
        return PickleError(f"{self.name}: byte {self.at:,}: {why}")

    # -- reading the input
    def take(self, size: int) -> bytes:
        if size > len(self.data) - self.pos:
            raise self.fail(f"the pickle ends inside an opcode's {size:,}-byte argument")
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def unsigned(self, size: int) -> int:
        return int.from_bytes(self.take(size), "little")

    def line(self) -> bytes:
        end = self.data.find(b"\n", self.pos, self.pos + limits.MAX_STRING_BYTES + 1)
        if end < 0:
            raise self.fail("the pickle ends inside a line argument (no newline)")
        chunk = self.data[self.pos : end]
        self.pos = end + 1
        return chunk

    def sized(self, size: int) -> bytes:
        if size > limits.MAX_STRING_BYTES:
            raise self.fail(
                f"a string of {size:,} bytes, more than the {limits.MAX_STRING_BYTES:,} "
                "tpuemb reads"
            )
        return self.take(size)

    def text(self, raw: bytes, encoding: str = "utf-8") -> str:
        try:
            return raw.decode(encoding, "surrogatepass" if encoding == "utf-8" else "strict")
        except UnicodeDecodeError as error:
            raise self.fail(f"a string that is not {encoding}: {error.reason}") from None

    def decimal(self, raw: bytes) -> int:
        """A decimal integer argument (``INT``, ``LONG``, ``GET``, ``PUT``), as ``int(raw, 0)``."""
        if len(raw) > INT_DIGITS:
            raise self.fail(f"an integer of {len(raw):,} digits, more than the {INT_DIGITS:,} read")
        try:
            return int(raw, 0)
        except ValueError:
            raise self.fail(f"{printable(repr(raw)[:40])} is not an integer") from None

    # -- the stacks
    def push(self, value: object) -> None:
        self.stack.append(value)

    def pop(self) -> object:
        if not self.stack:
            raise self.fail("the stack is empty (stack underflow)")
        return self.stack.pop()

    def top(self) -> object:
        if not self.stack:
            raise self.fail("the stack is empty (stack underflow)")
        return self.stack[-1]

    def mark(self) -> None:
        if len(self.marks) >= limits.MAX_MARKS:
            raise self.fail(f"more than {limits.MAX_MARKS:,} MARKs open at once; refused")
        self.marks.append(self.stack)
        self.stack = []

    def pop_mark(self) -> list[object]:
        if not self.marks:
            raise self.fail("no MARK to pop to")
        items = self.stack
        self.stack = self.marks.pop()
        if len(items) > limits.MAX_ITEMS:
            raise self.fail(f"more than {limits.MAX_ITEMS:,} items in one container; refused")
        return items

    def index(self, raw: bytes) -> int:
        index = self.decimal(raw)
        if index < 0:
            raise self.fail(f"a negative memo index, {index}")
        return index

    def get(self, index: int) -> None:
        if index not in self.memo:
            raise self.fail(f"memo entry {index:,} was never stored")
        self.push(self.memo[index])

    def put(self, index: int) -> None:
        if index not in self.memo and len(self.memo) >= limits.MAX_MEMO:
            raise self.fail(f"more than {limits.MAX_MEMO:,} memo entries; refused")
        self.memo[index] = self.top()

    # -- containers
    def key(self, value: object) -> object:
        """``value`` checked as a dict key or set item."""
        try:
            hash(value)
        except TypeError:
            raise self.fail(f"a {type(value).__name__} as a dict key or set item") from None
        if hash_chosen(value):
            self.chosen_keys += 1
            if self.chosen_keys > limits.MAX_HASH_CHOSEN_KEYS:
                raise self.fail(
                    f"more than {limits.MAX_HASH_CHOSEN_KEYS:,} numeric dict keys or set items; "
                    "refused"
                )
        return value

    def set_items(self, target: object, items: list[object]) -> None:
        if len(items) % 2:
            raise self.fail("SETITEMS with an odd number of items")
        pairs = [(self.key(items[i]), items[i + 1]) for i in range(0, len(items), 2)]
        if isinstance(target, dict):
            target.update(pairs)
            size = len(target)
        elif isinstance(target, Object):
            target.set_items.extend(pairs)
            size = len(target.set_items)
        else:
            raise self.fail(f"SETITEMS on a {kind(target)}")
        self.check_size(size)

    def append(self, target: object, items: list[object]) -> None:
        if isinstance(target, list):
            target.extend(items)
            size = len(target)
        elif isinstance(target, Object):
            target.appended.extend(items)
            size = len(target.appended)
        else:
            raise self.fail(f"APPENDS on a {kind(target)}")
        self.check_size(size)

    def check_size(self, size: int) -> None:
        if size > limits.MAX_ITEMS:
            raise self.fail(f"more than {limits.MAX_ITEMS:,} items in one container; refused")

    def immutable(self, value: tuple[object, ...] | frozenset[object]) -> None:
        """Push a new tuple or frozenset, refused past ``limits.MAX_DEPTH`` of them nested."""
        depth = 1
        for item in value:
            if isinstance(item, (tuple, frozenset)):
                known = self.nesting.get(id(item))
                depth = max(depth, 1 + (known[1] if known else 1))
        if depth > limits.MAX_DEPTH:
            raise self.fail(f"tuples nested more than {limits.MAX_DEPTH} deep; refused")
        self.nesting[id(value)] = (value, depth)
        self.push(value)

    def global_(self, module: object, name: object) -> Global:
        if not isinstance(module, str) or not isinstance(name, str):
            raise self.fail("a class reference whose module or name is not a string")
        if self.protocol < 3:
            # Python 2's names, as pickle.loads maps them (fix_imports): a table, not an import.
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        return Global(module, name)

    def args(self, value: object, what: str) -> tuple[object, ...]:
        if not isinstance(value, tuple):
            raise self.fail(f"{what} arguments that are a {kind(value)}, not a tuple")
        return value


def hash_chosen(value: object) -> bool:
    """Whether a key's hash is the file's to choose: no str, bytes or record in it."""
    if isinstance(value, (str, bytes, Global, Object, PersistentId)):
        return False
    if isinstance(value, (tuple, frozenset)):
        return all(hash_chosen(item) for item in value)
    return True
