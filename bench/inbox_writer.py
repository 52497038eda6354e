"""Another writer of a Claude Code inbox, as fast as it can, under the inbox lock (mkdir
``<inbox>.lock``; read, append, write a temp file and rename it over), with Claude Code
2.1.332's patience: 11 mkdir attempts, waiting 5 ms doubling to 100 ms between them (655 ms in
all), then the message is dropped, as Claude Code drops it. Prints how many it dropped.

Run: python -m bench.inbox_writer INBOX COUNT [NAME [PAD]] (PAD: characters added to each
message, as large as an update); used by the benchmark's inbox lock row
and by the contention test.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time


def main() -> int:
    path, count = sys.argv[1], int(sys.argv[2])
    name = sys.argv[3] if len(sys.argv) > 3 else f"writer-{os.getpid()}"
    pad = "x" * int(sys.argv[4]) if len(sys.argv) > 4 else ""
    lock = path + ".lock"
    dropped = 0
    for n in range(count):
        time.sleep(random.uniform(0.0, 0.002))  # between messages, not under the lock
        if not _take(lock):
            dropped += 1
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                items = json.load(fh) if os.path.getsize(path) else []
            items.append({"from": name, "text": f"{name} {n}{pad}", "timestamp": str(n), "read": False})
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(items))
            os.replace(tmp, path)
        finally:
            os.rmdir(lock)
    print(dropped)
    return 0


def _take(lock: str) -> bool:
    """The lock within Claude Code's retries (``retries: 10, minTimeout: 5, maxTimeout: 100``)."""
    for wait in (0.005, 0.01, 0.02, 0.04, 0.08, 0.1, 0.1, 0.1, 0.1, 0.1, None):
        try:
            os.mkdir(lock)
            return True
        except FileExistsError:
            if wait is None:
                return False
            time.sleep(wait)
    return False


if __name__ == "__main__":
    sys.exit(main())
