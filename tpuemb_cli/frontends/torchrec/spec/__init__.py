"""What torchrec computes from a TorchRecSpec: its stacks and their layout (``stacking``), and
what the fused collection allocates (``memory``)."""
