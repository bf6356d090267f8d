"""``tpuemb stats``: the statistics jax-tpu-embedding's host preprocessing computes per stack,
from a sample of input ids (`plan`: the stacks, the slicing and the buffers, in plain Python;
`compute`: the counting, with numpy)."""
