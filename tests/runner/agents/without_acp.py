"""The rcaeval CLI as a plain ``pip install rcaeval-judge`` sees it: the optional ``acp``
extra (agent-client-protocol) hidden from this process, so ``import acp`` raises ImportError
and ``importlib.util.find_spec("acp")`` is None. Arguments are the CLI's."""

import sys

sys.modules["acp"] = None  # type: ignore[assignment]

from rcaeval.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
