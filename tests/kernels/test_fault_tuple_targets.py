"""A misspelled name is a Triton NameError only where it is read: a tuple target (`m, l_run, acc = f(...)`) that
is misspelled defines a new name and compiles (the catalog audit's c00217, chunked_prefill on sm_120a, before the
fix), so no undefined-name fault is made there."""
from generator.kernels import Source
from generator.kernels.faults import triton_error_sites

TEXT = '''import triton
import triton.language as tl


@triton.jit
def tiny_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    l_run = tl.zeros((BLOCK,), dtype=tl.float32)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, 4):
        acc, l_run = acc + l_run, l_run + 1.0
        m_i, l_run, acc = tl.max(acc, 0), l_run * 2.0, acc
    tl.store(x_ptr + offs, acc + l_run)
'''


def test_tuple_targets_are_not_sites_but_reads_are():
    source = Source(TEXT, "k.py", "triton", "sm_90a")
    sites, _names = triton_error_sites(source)
    line_of = {ln.strip(): i for i, ln in enumerate(TEXT.splitlines(), 1)}
    tuple_lines = (line_of["acc, l_run = acc + l_run, l_run + 1.0"],
                   line_of["m_i, l_run, acc = tl.max(acc, 0), l_run * 2.0, acc"])
    reads = [at for what, _def, at, var in sites if what == "name" and var == "l_run"]
    targets = [TEXT.index("acc, l_run =") + len("acc, "), TEXT.index("m_i, l_run, acc =") + len("m_i, ")]
    assert not set(targets) & set(reads)
    # the reads on those lines (right of `=`) and the store's are still sites
    store = line_of["tl.store(x_ptr + offs, acc + l_run)"]
    assert {TEXT.count("\n", 0, at) + 1 for at in reads} == {*tuple_lines, store}
