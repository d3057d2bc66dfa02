"""Shared pieces of the measurement scripts in tools/measure/.

The scripts import this module from their own folder (`python3 tools/measure/X.py` puts
tools/measure/ first on sys.path). Nothing here imports torch at module level, so the CSV
writer (and gemm_sweep.py --self-test) works on a machine without torch.

  common options   add_common_args(): --out, --device, --repeats, --warmup, --quick
  environment      print_environment(): '#' lines on stdout (never into the CSV)
  timing           time_cuda(): CUDA events, warm-up, median of the repeats
  output           CsvWriter: header first, comma-separated, one row per measurement,
                   flushed after every row so a sweep cut short keeps what it measured
"""
import argparse
import datetime
import importlib
import math
import os
import platform
import shlex
import statistics
import sys


# ----------------------------------------------------------------------------- options
QUICK_WARMUP, QUICK_REPEATS = 3, 10


def add_common_args(parser, default_out, default_warmup, default_repeats):
    """The options every script takes. --warmup/--repeats default to None so that
    resolve_quick() can tell 'not given' from 'given'."""
    parser.add_argument("--out", default=default_out,
                        help=f"CSV file to write (default: {default_out})")
    parser.add_argument("--device", default="cuda:0", help="CUDA device (default: cuda:0)")
    parser.add_argument("--warmup", type=int, default=None,
                        help=f"untimed calls before timing (default: {default_warmup}; --quick: {QUICK_WARMUP})")
    parser.add_argument("--repeats", type=int, default=None,
                        help=f"timed repeats, the median is kept (default: {default_repeats}; --quick: {QUICK_REPEATS})")
    parser.add_argument("--quick", action="store_true",
                        help="a small sweep that finishes in under a minute on an H100")
    parser.set_defaults(_default_warmup=default_warmup, _default_repeats=default_repeats)


def resolve_quick(args, quick_warmup=QUICK_WARMUP, quick_repeats=QUICK_REPEATS):
    """Fills --warmup/--repeats: the value given, else the quick or the full default."""
    if args.warmup is None:
        args.warmup = quick_warmup if args.quick else args._default_warmup
    if args.repeats is None:
        args.repeats = quick_repeats if args.quick else args._default_repeats
    if args.warmup < 0 or args.repeats < 1:
        sys.exit("error: --warmup must be >= 0 and --repeats >= 1")


def int_list(text):
    """'1,2,4' -> [1, 2, 4] (argparse type)."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers separated by commas, got {text!r}")


def str_list(text):
    """'bf16,fp8' -> ['bf16', 'fp8'] (argparse type)."""
    return [x.strip() for x in text.split(",") if x.strip()]


# ----------------------------------------------------------------------------- environment
def _version_of(module_name):
    """Version of an optional package, or None when it does not import."""
    try:
        module = importlib.import_module(module_name)
    except Exception:  # ImportError, or a broken build failing at import time
        return None
    return getattr(module, "__version__", "unknown version")


def print_environment(script, device):
    """Prints the GPU, the software versions and the command line as '#' lines on stdout."""
    import torch

    print(f"# ridgeline measure: {script}")
    print(f"# command: {' '.join(shlex.quote(a) for a in [sys.executable] + sys.argv)}")
    print(f"# date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}"
          f"  host: {platform.node()}")
    props = torch.cuda.get_device_properties(device)
    l2 = getattr(props, "L2_cache_size", 0)
    print(f"# gpu: {props.name}  sm_{props.major}{props.minor}  {props.multi_processor_count} SMs"
          f"  {props.total_memory / 2**30:.1f} GiB" + (f"  L2 {l2 / 2**20:.0f} MiB" if l2 else ""))
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    print(f"# torch {torch.__version__}  cuda {torch.version.cuda}  cudnn {cudnn}"
          + (f"  hip {torch.version.hip}" if getattr(torch.version, "hip", None) else ""))
    optional = {name: _version_of(name) for name in ("flash_attn", "transformer_engine")}
    print("# optional: " + "  ".join(f"{k} {v if v else 'not installed'}" for k, v in optional.items()))
    for var in ("CUDA_VISIBLE_DEVICES", "CUBLAS_WORKSPACE_CONFIG", "NVIDIA_TF32_OVERRIDE"):
        if var in os.environ:
            print(f"# env: {var}={os.environ[var]}")
    sys.stdout.flush()


def require_torch():
    """Exits with a plain message when this Python has no torch."""
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit(f"error: {sys.executable} has no torch; these scripts need PyTorch >= 2.1 with CUDA")


def setup_device(device_name):
    """Checks that CUDA is there, selects the device and turns TF32 off (an fp32 matmul
    anywhere must stay fp32; bf16/fp16/fp8 GEMMs are not affected). Returns the device."""
    require_torch()
    import torch

    if not torch.cuda.is_available():
        sys.exit("error: no CUDA device visible to torch (these scripts time GPU kernels)")
    device = torch.device(device_name)
    torch.cuda.set_device(device)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return device


# ----------------------------------------------------------------------------- timing
class L2Flush:
    """Evicts the L2 cache by writing a buffer larger than it (twice the L2, 256 MiB at
    least), so a timed kernel reads its operands from HBM as it would in a real layer."""

    def __init__(self, device):
        import torch

        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0
        self.buffer = torch.empty(max(2 * l2, 256 * 2**20), dtype=torch.uint8, device=device)

    def __call__(self):
        self.buffer.zero_()


def time_cuda(fn, warmup, repeats, flush=None, min_repeat_s=2e-4, max_inner=100):
    """Median GPU time in seconds of one call of fn().

    Each repeat is bracketed by two CUDA events on the current stream; all the repeats are
    launched before one synchronize, so the CPU runs ahead and launch latency stays off the
    GPU timeline whenever the kernels are longer than their launch.

    Without flush, a repeat runs fn() `inner` times (as many as make one repeat last about
    min_repeat_s, at most max_inner) and counts their mean: the two events cost a few
    microseconds, which would distort a 10 us kernel. With flush (an L2Flush), every repeat
    is a single call preceded by the flush, which runs before the start event and is not
    counted.
    """
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()

    inner = 1
    if flush is None:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        once = max(start.elapsed_time(end) * 1e-3, 1e-7)
        inner = max(1, min(max_inner, math.ceil(min_repeat_s / once)))

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    for i in range(repeats):
        if flush is not None:
            flush()
        starts[i].record()
        for _ in range(inner):
            fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e-3 / inner for s, e in zip(starts, ends))


def free_memory():
    """Returns the cached blocks of the last shape to the driver, once its tensors are no
    longer referenced (the scripts drop the closure holding them first), so that the next
    shape starts from an unfragmented pool."""
    import torch

    torch.cuda.empty_cache()


def is_oom(exc):
    """True for a CUDA out-of-memory error (torch.cuda.OutOfMemoryError, or the plain
    RuntimeError older builds raise)."""
    return "out of memory" in str(exc).lower()


# ----------------------------------------------------------------------------- output
def format_value(value):
    """A CSV cell: bool -> true/false, int as is, float with 6 significant digits
    (1.23457e-05, 812.345): what a C++ strtod reads back. No cell holds a comma."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"refusing to write a non-finite number: {value}")
        return f"{value:.6g}"
    text = str(value)
    if "," in text or "\n" in text:
        raise ValueError(f"a CSV cell may not hold a comma or a newline: {text!r}")
    return text


class CsvWriter:
    """Writes the header, then one row per call of row(); flushes every row."""

    def __init__(self, path, columns):
        self.path = path
        self.columns = list(columns)
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        self._file = open(path, "w", newline="")
        self._file.write(",".join(self.columns) + "\n")
        self._file.flush()
        self.rows = 0

    def row(self, *values):
        if len(values) != len(self.columns):
            raise ValueError(f"{len(values)} values for {len(self.columns)} columns")
        self._file.write(",".join(format_value(v) for v in values) + "\n")
        self._file.flush()
        self.rows += 1

    def close(self):
        self._file.close()
        print(f"# wrote {self.rows} rows to {self.path}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
