#!/usr/bin/env python3
"""Runs the integration tests (every Tests/integration/test_*.py, or the modules named) and ends with
one line, "integration: N passed, N failed, N skipped". Binaries from $TB_BIN (default .build/debug).

    python3 Tests/integration/run.py                              # all
    python3 Tests/integration/run.py test_cli                     # one module
    python3 Tests/integration/run.py test_cli.HelpTests           # one class (or one test)
"""
import os
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(names=None):
    warnings.simplefilter("ignore", ResourceWarning)
    names = names if names is not None else sys.argv[1:]
    loader = unittest.TestLoader()
    if names:
        suite = loader.loadTestsFromNames(names)
    else:
        suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2, warnings="ignore").run(suite)
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    print("integration: {} passed, {} failed, {} skipped".format(result.testsRun - failed - skipped, failed, skipped))
    sys.exit(1 if failed or result.testsRun == 0 else 0)


if __name__ == "__main__":
    main()
