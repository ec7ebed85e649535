"""Write docs/tui.svg: the TUI on gcn at 100x30, a few steps in (the menu of an order hole with
its cost hints, the details of the highlighted order, the history, the evaluation).

It runs in a temporary directory (the session is `.navigator/session.json` there, as the title
shows) and waits for every worker before the screenshot, so the picture is the same on every
run. Rerun it after a change of the screen:

    python benchmarks/tui_screenshot.py [--out docs/tui.svg]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fuseflow.support.files import write_text_atomic  # noqa: E402
from harness.tui_apps import app, settle  # noqa: E402

#: gcn: schedule, fuse, the regions aggregate1+transform1+activate1 and aggregate2+transform2+bias2;
#: the first open hole is then the first region's order (12 legal orders)
PICKS = (1, 1, 3, 3)
SIZE = (100, 30)


async def screenshot() -> str:
    shown = app("gcn", PICKS)
    async with shown.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down")  # the second order, to show its details
        await settle(pilot)
        svg = shown.export_screenshot(title="navigator tui gcn")
    return re.sub(r"\bterminal-\d+-", "terminal-", svg)  # rich's random id: the file changes only with the screen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "tui.svg"))
    out = Path(parser.parse_args().out).resolve()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        try:
            svg = asyncio.run(screenshot())
        finally:
            os.chdir(here)
    write_text_atomic(str(out), svg)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
