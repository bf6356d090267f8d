"""A value of the wrong kind for its field: a fraction for an integer, a word for a number.

## What it does
Reports a value that cannot be converted to its field's type: `num_hosts: 1.5`,
`dimension: "8"` in text format, `"true"` (a string) for a JSON boolean, an object where an array
is expected, a top level that is not an object. A JSON or YAML string holding a lone surrogate
escape (`"\\ud800"`, half of a UTF-16 pair and not a character) is reported at the string, and
read with U+FFFD in its place so that the other rules still run.

## Why is this bad?
TensorFlow cannot read the file.

## What TensorFlow does
Parsing fails: `Couldn't parse integer: 1.5`.

## Example
```pbtxt
num_hosts: 1.5
```

## Use instead
```pbtxt
num_hosts: 2
```

## Fix safety
No automatic fix.

## Options
None.

## References
- protobuf text format and JSON mapping
"""
