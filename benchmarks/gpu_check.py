"""posenc on an accelerator: every public function against the CPU, and Shaw attention's timings.

    python -m benchmarks.gpu_check [--device cuda] [--out gpu_check.md] [--quick]
    python -m benchmarks.gpu_check --device cpu --quick        # smoke test, no GPU needed

Run from the repository's root (``-m`` puts it on the path, so the cases of ``tests/`` import).

Run it by hand where a GPU is available (about 2–3 minutes on an H100). Two parts, printed as
markdown tables (also written to ``--out``):

1. **Device agreement.** Every case of ``tests/posenc/test_device.py`` and
   ``tests/book/test_device.py`` (each public function and module of ``posenc``, ``book.toy``,
   ``book.experiments``, ``book.demos`` and ``book.catalogue``, with seeded inputs built on the CPU) is run
   on the CPU and on ``--device``; the outputs must have the same structure, shapes and dtypes,
   integer and boolean tensors must be equal, and floating tensors close (``rtol`` / ``atol``
   below; float32 matrix products on a GPU round differently). Mismatches and failures are
   listed by name; exempt names (no tensor input) are counted.
2. **Shaw timings.** Batch 1, 8 heads, ``d = 64``, ``k = 16``; ``n`` from 512 to 16384; float32
   and bfloat16; forward alone and forward + backward. Columns: plain matmul-softmax attention
   ``softmax(q kᵀ/√d) v`` (the reference of the ratio), ``F.scaled_dot_product_attention``,
   ``shaw_attention`` with ``strategy="auto"`` (whole rows on a GPU, blocks on the CPU), the
   other strategy (skipped above ``--other-max``: the block loop is slow on a GPU), the ratio
   auto / plain, and on CUDA the extra peak memory (``torch.cuda.max_memory_allocated`` above
   what the inputs hold) of plain attention and of ``shaw_attention``. Times are medians over
   repeats after warm-up calls, bracketed by ``torch.cuda.synchronize``; sizes that run out of
   memory are marked ``OOM`` and skipped.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor

from posenc.shaw import shaw_attention
from tests.book import test_device as book_cases
from tests.posenc import test_device as posenc_cases

RTOL, ATOL = 1e-4, 1e-5  # float32 on a GPU against the CPU
TIME_BUDGET_S = 0.4  # target time per measured cell; repeats are chosen from the warm-up call


# --------------------------------------------------------------------------------------------
# Part 1: every public name on the device against the CPU


def check_functions(device: torch.device) -> tuple[str, int]:
    """Markdown report of part 1 and the number of mismatches and failures."""
    cpu = torch.device("cpu")
    groups = {"posenc": (posenc_cases.CASES, posenc_cases.EXEMPT), **book_cases.GROUPS}
    rows, problems, checked, exempt = [], 0, 0, 0
    start = time.perf_counter()
    for group, (cases, exemptions) in groups.items():
        exempt += len(exemptions)
        for name, calls in cases.items():
            for i, case in enumerate(calls):
                checked += 1
                try:
                    expected = case(cpu)
                except Exception as error:  # noqa: BLE001 - a report lists every failure
                    rows.append((f"{group}.{name}[{i}]", f"fails on the CPU: {error!r}"))
                    problems += 1
                    continue
                try:
                    got = case(device)
                    _synchronize(device)
                except Exception as error:  # noqa: BLE001
                    last = traceback.format_exception_only(type(error), error)[-1].strip()
                    rows.append((f"{group}.{name}[{i}]", f"fails on {device}: {last}"))
                    problems += 1
                    continue
                why = posenc_cases.difference(
                    expected, got, device, equal_nan=True, close_floats=True
                )
                if why is not None:
                    rows.append((f"{group}.{name}[{i}]", why))
                    problems += 1
    lines = [
        f"## Device agreement: {device} against the CPU",
        "",
        (
            f"{checked} cases checked, {problems} mismatches or failures, {exempt} names exempt "
            f"(no tensor input; see tests/posenc/test_device.py and tests/book/test_device.py), rtol = {RTOL:g}, atol = {ATOL:g}, "
            f"{time.perf_counter() - start:.1f} s."
        ),
        "",
    ]
    if rows:
        lines += ["| case | problem |", "|---|---|"]
        lines += [f"| `{name}` | {why} |" for name, why in rows]
    else:
        lines.append("Every case agrees.")
    return "\n".join(lines) + "\n", problems


# --------------------------------------------------------------------------------------------
# Part 2: Shaw attention timings


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _is_oom(error: BaseException) -> bool:
    return isinstance(error, torch.OutOfMemoryError) or "out of memory" in str(error).lower()


def plain_attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """``softmax(q kᵀ/√d) v`` written out: the reference for the time ratio."""
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v


def measure(
    call: Callable[[], object], device: torch.device, *, min_repeats: int, warmup: int
) -> tuple[float, float | None]:
    """Median ms of ``call`` and its extra peak memory in MiB (CUDA only, else ``None``)."""
    _synchronize(device)
    base = torch.cuda.memory_allocated(device) if device.type == "cuda" else 0
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    start = time.perf_counter()
    call()
    _synchronize(device)
    first = time.perf_counter() - start
    peak = None
    if device.type == "cuda":
        peak = (torch.cuda.max_memory_allocated(device) - base) / 2**20
    for _ in range(warmup - 1):
        call()
    repeats = max(min_repeats, min(25, int(TIME_BUDGET_S / max(first, 1e-6))))
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            call()
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end))
        else:
            start = time.perf_counter()
            call()
            times.append(1e3 * (time.perf_counter() - start))
    return statistics.median(times), peak


def shaw_table(
    device: torch.device,
    sizes: list[int],
    dtypes: list[torch.dtype],
    *,
    other_max: int,
    min_repeats: int,
    warmup: int,
) -> str:
    """Markdown tables of part 2, one per dtype and mode."""
    heads, d, max_k = 8, 64, 16
    auto_path = "blocked" if device.type == "cpu" else "whole"
    other_path = "whole" if auto_path == "blocked" else "blocked"
    out = [
        f"## Shaw attention on {_device_name(device)}",
        "",
        (
            f"Batch 1, {heads} heads, d = {d}, k = {max_k}; median ms after {warmup} warm-up "
            f"call(s), at least {min_repeats} repeats; `auto` takes the {auto_path} path here. "
            "Peak MiB: extra memory allocated during one call (CUDA only). "
            "max err: largest |auto − other path| of the forward outputs."
        ),
        "",
    ]
    for dtype in dtypes:
        for backward in (False, True):
            mode = "forward + backward" if backward else "forward"
            out += [
                f"### {str(dtype).removeprefix('torch.')}, {mode}",
                "",
                (
                    f"| n | plain ms | sdpa ms | shaw auto ({auto_path}) ms | {other_path} ms "
                    "| auto / plain | plain peak MiB | shaw peak MiB | max err |"
                ),
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
            for n in sizes:
                out.append(
                    _shaw_row(
                        device,
                        n,
                        dtype,
                        backward,
                        heads,
                        d,
                        max_k,
                        auto_path,
                        other_path,
                        other_max=other_max,
                        min_repeats=min_repeats,
                        warmup=warmup,
                    )
                )
                _free(device)  # the row's tensors are gone with its frame
                print(out[-1], flush=True)
            out.append("")
    return "\n".join(out)


def _shaw_row(
    device: torch.device,
    n: int,
    dtype: torch.dtype,
    backward: bool,
    heads: int,
    d: int,
    max_k: int,
    auto_path: str,
    other_path: str,
    *,
    other_max: int,
    min_repeats: int,
    warmup: int,
) -> str:
    g = torch.Generator().manual_seed(n)
    try:
        q, k, v = (
            torch.randn(1, heads, n, d, generator=g).to(device, dtype).requires_grad_(backward)
            for _ in range(3)
        )
        rel_k, rel_v = (
            (0.1 * torch.randn(2 * max_k + 1, d, generator=g))
            .to(device, dtype)
            .requires_grad_(backward)
            for _ in range(2)
        )
        grad = torch.randn(1, heads, n, d, generator=g).to(device, dtype)
    except Exception as error:
        if _is_oom(error):
            _free(device)
            return f"| {n} | OOM (inputs) |  |  |  |  |  |  |  |"
        raise
    leaves_ = (q, k, v, rel_k, rel_v)
    outputs: dict[str, Tensor] = {}

    def run(name: str, fn: Callable[[], Tensor]) -> Callable[[], None]:
        def call() -> None:
            if backward:
                for t in leaves_:
                    t.grad = None
                fn().backward(grad)
            else:
                with torch.no_grad():
                    outputs[name] = fn()

        return call

    calls = {
        "plain": run("plain", lambda: plain_attention(q, k, v)),
        "sdpa": run("sdpa", lambda: F.scaled_dot_product_attention(q, k, v)),
        "auto": run("auto", lambda: shaw_attention(q, k, v, rel_k, rel_v, strategy="auto")),
        "other": run("other", lambda: shaw_attention(q, k, v, rel_k, rel_v, strategy=other_path)),
    }
    cells: dict[str, tuple[float, float | None] | str] = {}
    for name, call in calls.items():
        if name == "other" and n > other_max:
            cells[name] = "–"
            continue
        try:
            cells[name] = measure(call, device, min_repeats=min_repeats, warmup=warmup)
        except Exception as error:
            if not _is_oom(error):
                raise
            cells[name] = "OOM"
            outputs.pop(name, None)
            _free(device)
        if name != "auto" and name != "other":
            outputs.pop(name, None)  # keep only the two Shaw outputs, free the rest

    def ms(name: str) -> str:
        cell = cells[name]
        return cell if isinstance(cell, str) else f"{cell[0]:.2f}"

    def mib(name: str) -> str:
        cell = cells[name]
        if isinstance(cell, str) or cell[1] is None:
            return "–"
        return f"{cell[1]:.0f}"

    ratio = "–"
    if not isinstance(cells["auto"], str) and not isinstance(cells["plain"], str):
        ratio = f"{cells['auto'][0] / cells['plain'][0]:.2f}"
    err = "–"
    if "auto" in outputs and "other" in outputs:
        err = f"{(outputs['auto'].float() - outputs['other'].float()).abs().max().item():.1e}"
    outputs.clear()
    return (
        f"| {n} | {ms('plain')} | {ms('sdpa')} | {ms('auto')} | {ms('other')} | {ratio} | "
        f"{mib('plain')} | {mib('auto')} | {err} |"
    )


def _free(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} (torch {torch.__version__})"
    return f"{device} (torch {torch.__version__}, {torch.get_num_threads()} threads)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--device", default="cuda", help="device to check (default: cuda)")
    parser.add_argument("--out", type=Path, help="also write the markdown tables to this file")
    parser.add_argument(
        "--quick", action="store_true", help="small sizes and float32 only (a smoke test)"
    )
    parser.add_argument("--sizes", type=int, nargs="+", help="sequence lengths to time")
    parser.add_argument(
        "--other-max",
        type=int,
        default=8192,
        help="largest n at which the non-default strategy is timed (default 8192)",
    )
    parser.add_argument("--skip-functions", action="store_true", help="skip part 1")
    parser.add_argument("--skip-timings", action="store_true", help="skip part 2")
    args = parser.parse_args(argv)

    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("CUDA is not available here; use --device cpu for a smoke test")
    if args.sizes:
        sizes = args.sizes
    elif args.quick:
        sizes = [256, 512]
    else:
        sizes = [512, 1024, 2048, 4096, 8192, 16384]
    dtypes = [torch.float32] if args.quick else [torch.float32, torch.bfloat16]

    start = time.perf_counter()
    parts, problems = [], 0
    if not args.skip_functions:
        report, problems = check_functions(device)
        print(report, flush=True)
        parts.append(report)
    if not args.skip_timings:
        table = shaw_table(
            device,
            sizes,
            dtypes,
            other_max=args.other_max,
            min_repeats=2 if args.quick else 5,
            warmup=1 if args.quick else 2,
        )
        print(table, flush=True)
        parts.append(table)
    footer = f"Total {time.perf_counter() - start:.0f} s."
    print(footer)
    if args.out is not None:
        args.out.write_text("\n".join(parts) + "\n" + footer + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
