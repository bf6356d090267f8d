"""Reading what TorchRec leaves on disk: a PyTorch distributed checkpoint's ``.metadata``."""
