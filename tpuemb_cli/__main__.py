"""``python -m tpuemb_cli``."""

from tpuemb_cli.console import run

run()
