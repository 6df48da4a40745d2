/* Every unit test suite, once. Add a line per tests/unit/<name>.c. */
SUITE(util)
SUITE(policy)
SUITE(share)
SUITE(downgrade)
SUITE(codec)
SUITE(stats)
