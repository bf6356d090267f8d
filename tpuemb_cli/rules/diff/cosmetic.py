"""A change with no effect on the restored state or on training.

## What it does
Reports, in `tpuemb diff`, named tables or features reordered, features renamed,
`vocabulary_size` padded to a new host count, a config file new since the revision compared
with.

## Why is this bad?
It is not: it is reported so that the report accounts for every difference between the files.

## What TensorFlow does
Restores by variable name and shape: order and padding play no part (TensorFlow writes
`max(vocabulary_size, num_hosts)` into the config, but the variables keep the table's own
vocabulary size).

## Example
```pbtxt
# old: the two tables the other way round
table_descriptor { name: "b" vocabulary_size: 10 dimension: 4 }
table_descriptor { name: "a" vocabulary_size: 10 dimension: 4 }
```

## Use instead
```pbtxt
table_descriptor { name: "b" vocabulary_size: 10 dimension: 4 }
table_descriptor { name: "a" vocabulary_size: 10 dimension: 4 }
```
(nothing to change).

## Fix safety
No fix.

## Options
Not in the default `--fail-on`; `--ignore cosmetic` leaves these out of the report.

## References
- docs/diff.md, "cosmetic"
"""
