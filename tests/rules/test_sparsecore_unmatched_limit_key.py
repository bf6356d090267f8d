import json
from pathlib import Path

import yaml
from google.protobuf import json_format

from tests.sparsecore_specs import check
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.spec.sparsecore import plan

# `user` and `item` share a width and an optimizer: TensorFlow stacks them as `item_user` (the
# member names sorted, joined with `_`); `query` (dim 32) is a stack of its own.
SPEC = """\
optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}
tables:
  - {name: user, vocabulary_size: 1024, dim: 16}
  - {name: item, vocabulary_size: 4096, dim: 16}
  - {name: query, vocabulary_size: 2048, dim: 32}
features:
  - {name: user_id, table: user, output_shape: [128]}
  - {name: item_id, table: item, output_shape: [128]}
  - {name: query_id, table: query, output_shape: [128]}
topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}
sparse_core:
"""


def limits(text: str) -> str:
    return SPEC + text


def test_a_member_tables_name(tmp_path: Path) -> None:
    code, stdout, stderr, path = check(tmp_path, limits("  max_ids_per_table: {user: 1024}\n"))
    assert (code, stderr) == (0, "")
    assert stdout == (
        f"{path}:7:5: TE651 [info] the layouts TensorFlow writes into checkpoints record "
        "per_sparse_core_batch_size / num_features only for table 'user' (32 / 1 feature); "
        "tables 'item', 'query' carry 0 (TensorFlow 2.21 returns from its per-feature loop after "
        "the first feature)\n"
        f'{path}:12:23: TE652 [warning] key "user" of max_ids_per_table matches no stacked '
        'table: table "user" is stacked with "item" into "item_user", and TensorFlow looks up '
        'only that name, so the stack gets the default 256 (stacked names: "item_user", '
        '"query")\n'
        "Found 1 warning, 1 info in 1 file (1 file checked).\n"
    )
    _, stdout, _, _ = check(
        tmp_path, limits("  max_ids_per_table: {user: 1024}\n"), "--format", "json"
    )
    finding = next(f for f in json.loads(stdout)["findings"] if f["rule"] == "TE652")
    assert (finding["field"], finding["help"]) == (
        "sparse_core.max_ids_per_table.user",
        "rename the key to item_user (one limit for the whole stack)",
    )


def test_a_key_for_each_member(tmp_path: Path) -> None:
    text = limits("  max_unique_ids_per_table:\n    user: 64\n    item: 128\n")
    _, stdout, _, _ = check(tmp_path, text, "--select", "TE652", "--format", "json")
    assert [
        (f["field"], f["line"], f["column"], f["help"]) for f in json.loads(stdout)["findings"]
    ] == [
        (
            f"sparse_core.max_unique_ids_per_table.{name}",
            line,
            5,
            'replace the keys "item", "user" with one key, item_user (one limit for the whole '
            "stack)",
        )
        for name, line in (("user", 13), ("item", 14))
    ]


def test_a_near_miss(tmp_path: Path) -> None:
    code, stdout, _, path = check(
        tmp_path, limits("  max_ids_per_table: {item_usr: 1024}\n"), "--select", "TE652"
    )
    assert (code, stdout) == (
        0,
        f'{path}:12:23: TE652 [warning] key "item_usr" of max_ids_per_table matches no stacked '
        "table: TensorFlow never reads it, and stacks without a key get the default 256; did "
        'you mean "item_user"? (stacked names: "item_user", "query")\n'
        "Found 1 warning in 1 file (1 file checked).\n",
    )
    _, stdout, _, _ = check(
        tmp_path, limits("  max_ids_per_table: {item_usr: 1024}\n"), "--format", "json"
    )
    finding = next(f for f in json.loads(stdout)["findings"] if f["rule"] == "TE652")
    assert finding["help"] == "rename the key to item_user"


def test_a_misspelt_member_suggests_its_stack(tmp_path: Path) -> None:
    _, stdout, _, _ = check(
        tmp_path,
        limits("  max_ids_per_table: {usr: 1024}\n"),
        "--select",
        "TE652",
        "--format",
        "json",
    )
    (finding,) = json.loads(stdout)["findings"]
    assert finding["help"] == "rename the key to item_user"


def test_nothing_close(tmp_path: Path) -> None:
    code, stdout, _, path = check(
        tmp_path, limits("  max_ids_per_table: {embeddings: 1024}\n"), "--select", "TE652"
    )
    assert (code, stdout) == (
        0,
        f'{path}:12:23: TE652 [warning] key "embeddings" of max_ids_per_table matches no stacked '
        "table: TensorFlow never reads it, and stacks without a key get the default 256 "
        '(stacked names: "item_user", "query")\n'
        "Found 1 warning in 1 file (1 file checked).\n",
    )
    _, stdout, _, _ = check(
        tmp_path, limits("  max_ids_per_table: {embeddings: 1024}\n"), "--format", "json"
    )
    finding = next(f for f in json.loads(stdout)["findings"] if f["rule"] == "TE652")
    assert finding["help"] == "key the limit by a stacked name: item_user, query"


def test_the_stack_has_its_own_key(tmp_path: Path) -> None:
    text = limits("  max_ids_per_table: {item_user: 512, user: 1024}\n")
    code, stdout, _, path = check(tmp_path, text, "--select", "TE652")
    assert (code, stdout) == (
        0,
        f'{path}:12:39: TE652 [warning] key "user" of max_ids_per_table matches no stacked '
        'table: table "user" is stacked into "item_user", whose own key sets the stack\'s '
        'limit; TensorFlow never reads this one (stacked names: "item_user", "query")\n'
        "Found 1 warning in 1 file (1 file checked).\n",
    )


def test_a_table_no_feature_uses(tmp_path: Path) -> None:
    text = (
        SPEC.replace(
            "  - {name: query, vocabulary_size: 2048, dim: 32}\n",
            "  - {name: query, vocabulary_size: 2048, dim: 32}\n"
            "  - {name: spare, vocabulary_size: 64, dim: 8}\n",
        )
        + "  max_ids_per_table: {spare: 64}\n"
    )
    _, stdout, _, _ = check(tmp_path, text, "--select", "TE652", "--format", "json")
    (finding,) = json.loads(stdout)["findings"]
    assert (finding["message"], finding["help"]) == (
        'key "spare" of max_ids_per_table matches no stacked table: no feature uses table '
        '"spare", so TensorFlow lays out no stack for it (stacked names: "item_user", "query")',
        "delete this key",
    )


def test_stacked_names_are_right(tmp_path: Path) -> None:
    text = limits(
        "  max_ids_per_table: {item_user: 1024, query: 512}\n"
        "  max_unique_ids_per_table: {item_user: 256}\n"
    )
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE652")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_without_stacking_table_names_are_the_stacks(tmp_path: Path) -> None:
    text = limits("  disable_table_stacking: true\n  max_ids_per_table: {user: 1024, item: 64}\n")
    spec = json_format.ParseDict(yaml.safe_load(text), EmbeddingSpec())
    assert sorted(stack.name for stack in plan(spec).stacks) == ["item", "query", "user"]
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE652")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")
    _, stdout, _, path = check(
        tmp_path, text.replace("item: 64", "item_user: 64"), "--select", "TE652"
    )
    assert stdout.startswith(f'{path}:13:35: TE652 [warning] key "item_user" of ')


def test_a_26_table_stack_is_shortened_in_the_message(tmp_path: Path) -> None:
    tables = "".join(
        f"  - {{name: cat_{i}, vocabulary_size: 100000, dim: 16}}\n" for i in range(26)
    )
    features = "".join(
        f"  - {{name: f_{i}, table: cat_{i}, output_shape: [64]}}\n" for i in range(26)
    )
    text = (
        "optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}\n"
        f"tables:\n{tables}features:\n{features}"
        "topology: {num_hosts: 2, cores_per_host: 4, accelerator: v5p}\n"
        "sparse_core:\n  max_ids_per_table: {cat_3: 1024}\n"
    )
    stack = "_".join(sorted(f"cat_{i}" for i in range(26)))
    assert len(stack) == 171
    _, stdout, _, _ = check(tmp_path, text, "--select", "TE652", "--format", "json")
    (finding,) = json.loads(stdout)["findings"]
    assert (finding["line"], finding["column"], finding["message"], finding["help"]) == (
        58,
        23,
        'key "cat_3" of max_ids_per_table matches no stacked table: table "cat_3" is stacked '
        'with "cat_0", "cat_1", "cat_10", "cat_11" and 21 more tables into '
        '"cat_0_cat_1_cat_10_cat_1...at_7_cat_8_cat_9" (171 characters), and TensorFlow looks up '
        "only that name, so the stack gets the default 256",
        f"rename the key to {stack} (one limit for the whole stack)",
    )


def test_no_layout_says_nothing(tmp_path: Path) -> None:
    # v5e's SparseCores per device are not in tpuemb's chip table: the stacks are not known.
    text = limits("  max_ids_per_table: {user: 1024}\n").replace(
        "accelerator: v5p", "accelerator: v5e"
    )
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE652")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")
