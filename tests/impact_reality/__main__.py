"""`python -m tests.impact_reality`: the figures per release pair."""

import sys

from . import main

sys.exit(main())
