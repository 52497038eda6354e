"""Another writer of a Claude Code inbox, as fast as it can, under the inbox lock (mkdir
``<inbox>.lock``; read, append, write a temp file and rename it over).

Run: python -m bench.inbox_writer INBOX COUNT [NAME]; used by the benchmark's inbox lock row
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
    lock = path + ".lock"
    for n in range(count):
        while True:
            try:
                os.mkdir(lock)
                break
            except FileExistsError:
                time.sleep(random.uniform(0.001, 0.005))
        try:
            with open(path, encoding="utf-8") as fh:
                items = json.load(fh) if os.path.getsize(path) else []
            items.append({"from": name, "text": f"{name} {n}", "timestamp": str(n), "read": False})
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(items))
            os.replace(tmp, path)
        finally:
            os.rmdir(lock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
