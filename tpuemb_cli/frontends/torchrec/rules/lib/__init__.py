"""What the TorchRec rules share."""
