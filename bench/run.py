"""`make bench`: run every bench/bench_*.py module, print its figures, write results.json.

Each module has `run() -> dict[str, dict]`: section name -> figures (numbers or short strings).
"""

import importlib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
sys.path.insert(0, str(HERE.parent))

from bench.common import setup_django  # noqa: E402


def main() -> None:
    setup_django()
    from django.core.management import call_command  # once Django is set up

    results: dict = {"date": datetime.now(UTC).strftime("%Y-%m-%d"), "sections": {}}
    only = set(sys.argv[1:])
    if only and RESULTS.exists():
        # A partial run keeps the other sections' last figures.
        results["sections"] = json.loads(RESULTS.read_text())["sections"]
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem not in only:
            continue
        # Each module starts from an empty database, as when it runs alone: rows another
        # left (a 5,000-trail system) would otherwise queue their compiles before its own.
        call_command("flush", interactive=False, verbosity=0)
        module = importlib.import_module(f"bench.{path.stem}")
        for section, figures in module.run().items():
            results["sections"][section] = figures
            print(f"\n{section}")
            for name, value in figures.items():
                print(f"  {name:<48} {value}")
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwritten {RESULTS}")


if __name__ == "__main__":
    main()
