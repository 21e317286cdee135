"""Peak memory and time of Shaw relative attention, naive vs posenc vs plain attention.

    python -m benchmarks.shaw_attention [--sizes 256 512 1024 2048 4096] [--repeats 3]

One head, d = 64, k = 16, float32 on the CPU. Rows:

* ``plain``: ``softmax(q kᵀ/√d) v`` written out (the reference for the time ratio);
* ``sdpa``: ``torch.nn.functional.scaled_dot_product_attention`` (fused, for context);
* ``posenc``: :func:`posenc.shaw.shaw_attention` (no ``n × n × d`` tensor; on the CPU its
  default, blocked path);
* ``whole``: the same with ``strategy="whole"``, the path a GPU takes by default (whole rows,
  a few large kernels), timed here on the CPU for comparison (``benchmarks/gpu_check.py``
  times both on a GPU);
* ``naive``: :func:`book.demos.shaw.shaw_attention_reference` (builds ``a^K``, ``a^V`` as
  ``n × n × d``); skipped where its tensors would not fit comfortably.

Peak memory is the extra resident memory of the process during one call, in MiB
(``ru_maxrss``, which Linux reports in KiB, divided by 1024): measured in a fresh subprocess
per measurement, minus that of the same subprocess before the call, so every number comes
from an isolated run. Times are the median of ``--repeats`` calls after
one warm-up, measured in the same subprocess.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, statistics, sys, time, math
import torch, torch.nn.functional as F
from book.demos.shaw import shaw_attention_reference
from posenc.shaw import shaw_attention
torch.set_num_threads(int(sys.argv[4]))
name, n, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d, k = 64, 16
g = torch.Generator().manual_seed(0)
q, kk, v = (torch.randn(1, n, d, generator=g) for _ in range(3))
rk, rv = torch.randn(2 * k + 1, d, generator=g), torch.randn(2 * k + 1, d, generator=g)
fns = {
    "plain": lambda: torch.softmax(q @ kk.transpose(-2, -1) / math.sqrt(d), -1) @ v,
    "sdpa": lambda: F.scaled_dot_product_attention(q, kk, v),
    "posenc": lambda: shaw_attention(q, kk, v, rk, rv),
    "whole": lambda: shaw_attention(q, kk, v, rk, rv, strategy="whole"),
    "naive": lambda: shaw_attention_reference(q, kk, v, rk, rv),
}
fn = fns[name]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with torch.no_grad():
    fn()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter(); fn(); times.append(time.perf_counter() - t0)
print(json.dumps({"peak_mib": peak / 1024, "ms": 1e3 * statistics.median(times)}))
"""


def run(name: str, n: int, repeats: int, threads: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, name, str(n), str(repeats), str(threads)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048, 4096])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--naive-max", type=int, default=2048, help="largest n for the naive version"
    )
    args = parser.parse_args()
    print(f"d=64, k=16, float32, {args.threads} threads; peak = extra RSS of one call")
    print(
        f"{'n':>5} | {'plain ms':>8} {'sdpa ms':>8} {'posenc ms':>9} {'whole ms':>8} "
        f"{'naive ms':>9} | {'posenc/plain':>12} {'whole/plain':>11} | {'plain MiB':>9} "
        f"{'posenc MiB':>10} {'whole MiB':>9} {'naive MiB':>9}"
    )
    for n in args.sizes:
        r = {
            name: run(name, n, args.repeats, args.threads)
            for name in ("plain", "sdpa", "posenc", "whole")
        }
        naive = run("naive", n, args.repeats, args.threads) if n <= args.naive_max else None
        naive_ms = f"{naive['ms']:9.1f}" if naive else f"{'-':>9}"
        naive_mb = f"{naive['peak_mib']:9.1f}" if naive else f"{'-':>9}"
        print(
            f"{n:5d} | {r['plain']['ms']:8.1f} {r['sdpa']['ms']:8.1f} {r['posenc']['ms']:9.1f} "
            f"{r['whole']['ms']:8.1f} {naive_ms} | {r['posenc']['ms'] / r['plain']['ms']:12.2f} "
            f"{r['whole']['ms'] / r['plain']['ms']:11.2f} | {r['plain']['peak_mib']:9.1f} "
            f"{r['posenc']['peak_mib']:10.1f} {r['whole']['peak_mib']:9.1f} {naive_mb}"
        )


if __name__ == "__main__":
    main()
