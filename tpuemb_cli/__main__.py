"""``python -m tpuemb_cli``, and the ``tpuemb`` console script: ``cli.console.run``.

The cyclic garbage collector is turned off here, before the ``tpuemb_cli.cli`` package is imported
(cli/console.py says why it can be): that package imports click, and importing it with the
collector on ran a dozen collections over objects none of which is garbage.
"""

import gc


def run() -> None:
    gc.disable()
    from tpuemb_cli.cli.console import run as run_console

    run_console()


if __name__ == "__main__":
    run()
