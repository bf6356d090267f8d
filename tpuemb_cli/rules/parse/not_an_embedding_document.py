"""A file named on the command line that is not a TPU embedding document.

## What it does
Reports a file given by name (not found by walking a directory) whose content is not a document
tpuemb reads: its top-level fields are none of a `TPUEmbeddingConfiguration`'s, an
`OptimizationParameters`', an embedding spec's or a graph's, its `# proto-message:` header names
another type, or, in binary, it parses as none of them without unknown fields. One finding says
what the file is instead, rather than a finding for every field it does not have: its top-level
fields, the header's type (with the nearest type tpuemb reads, if one is close), or for binary
the types it was tried as ("it parses as no TPUEmbeddingConfiguration, GraphDef or
OptimizationParameters without unknown fields"; "it parses as TPUEmbeddingConfiguration but has
no `table_descriptor`").

Files found by walking a directory are skipped silently when they are not documents
(`tpuemb check --show-files` lists them, with the reason).

## Why is this bad?
The file was named for checking, so it was probably meant to be a config; or the command line
picks up files it should not (a pre-commit `files:` pattern that is too broad).

## What TensorFlow does
Nothing: TensorFlow never sees a file that is not a config. Given one as a config, its parsers
fail on the first field it does not know (`Message type "tensorflow.tpu.TPUEmbeddingConfiguration"
has no field named "services"`).

## Example
```yaml
# docker-compose.yml, passed to `tpuemb check` by a broad pre-commit pattern
services: {app: {image: "app:1"}}
```

## Use instead
Narrow what is checked (a pre-commit `files:` pattern, or `exclude` in the configuration), or,
when the file is a document written unusually, say its type with `--type` or a
`# proto-message:` header.

## Fix safety
No automatic fix.

## Options
None.

## References
- `tpuemb check --show-files`, which lists each file with what tpuemb takes it to be
"""
