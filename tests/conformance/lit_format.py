"""lit's shell-test format with the XFAIL marks of expectations.py applied.

A module of its own (not a class inside lit.cfg.py) so that lit's worker processes can
unpickle the tests that refer to it.
"""

from __future__ import annotations

import lit.formats
from expectations import XFAIL


class MarkedShTest(lit.formats.ShTest):
    """lit's ShTest (internal shell), marking the files named in XFAIL as expected failures."""

    def __init__(self) -> None:
        super().__init__(execute_external=False)

    def getTestsForPath(self, suite, path_in_suite, lit_config, local_config):
        """Yield lit's tests for a path, with an XFAIL mark where the table names the file."""
        for test in super().getTestsForPath(suite, path_in_suite, lit_config, local_config):
            if "/".join(test.path_in_suite) in XFAIL:
                test.xfails.append("*")
            yield test
