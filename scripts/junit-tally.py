"""Prints a JUnit XML report's counts as one plain closing line, `tests: N passed, N failed[, N skipped]`.

CI log readers understand that line whatever the runner; .ci/run also sums every step's line
into its own closing line, through the file named by CI_TALLY_FILE (when set, a line
"passed failed skipped" is appended to it).

    python3 scripts/junit-tally.py REPORT.xml
"""

import os
import sys
import xml.etree.ElementTree as ElementTree


def counts(path: str) -> tuple[int, int, int]:
    root = ElementTree.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    tests = failed = skipped = 0
    for suite in suites:
        tests += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped += int(suite.get("skipped", 0))
    return tests - failed - skipped, failed, skipped


def main() -> None:
    passed, failed, skipped = counts(sys.argv[1])
    print(f"tests: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    tally = os.environ.get("CI_TALLY_FILE")
    if tally:
        with open(tally, "a", encoding="utf-8") as file:
            file.write(f"{passed} {failed} {skipped}\n")


if __name__ == "__main__":
    main()
