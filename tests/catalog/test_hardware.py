"""The GPU catalog: the six GPUs of the seeds with figures from gpu_facts.md, each with its source."""
import pytest

from generator.catalog.hardware import FEATURES, GPUS, LAUNCH_MS, has, tc_peak_tflops

ARCH = {"h100": "sm_90a", "h200": "sm_90a", "a100": "sm_80", "a10": "sm_86", "rtx_a6000": "sm_86",
        "rtx_5090": "sm_120a"}


def test_six_gpus_in_interface_order_with_their_arch():
    assert {name: g.arch for name, g in GPUS.items()} == ARCH
    assert list(GPUS) == list(ARCH)


@pytest.mark.parametrize("name,bw,sms,fp16", [
    ("h100", 3350, 132, 989.4), ("h200", 4800, 132, 989.4), ("a100", 2039, 108, 312),
    ("a10", 600, 72, 125), ("rtx_a6000", 768, 84, 154.8), ("rtx_5090", 1792, 170, 209.5)])
def test_headline_figures_are_the_dense_ones_from_gpu_facts(name, bw, sms, fp16):
    g = GPUS[name]
    assert (g.dram_gbps, g.sms, g.tc_tflops["fp16"]) == (bw, sms, fp16)


def test_every_figure_names_a_url():
    for g in GPUS.values():
        for key in ("sms", "dram_gbps", "l2_mb", "tc_tflops", "fp32_tflops", "smem_dyn_max", "smem_static_max"):
            assert g.sources[key].startswith("https://"), (g.name, key)


def test_shared_memory_caps_per_block_are_exact():
    assert {n: g.smem_dyn_max for n, g in GPUS.items()} == {
        "h100": 232_448, "h200": 232_448, "a100": 166_912, "a10": 101_376, "rtx_a6000": 101_376,
        "rtx_5090": 101_376}
    assert all(g.smem_static_max == 48 * 1024 for g in GPUS.values())


def test_feature_gating_follows_the_isa_rules():
    for g in GPUS.values():
        assert has(g, "wgmma") == (g.arch == "sm_90a")
        assert has(g, "tma") == (g.cc >= 90)
        assert has(g, "fp8_mma") == (g.cc >= 89)
        assert has(g, "fp4_mma") == (g.cc == 120)
        assert has(g, "cp_async")
        assert ("fp8" in g.tc_tflops) == has(g, "fp8_mma")
        assert ("fp4" in g.tc_tflops) == has(g, "fp4_mma")
    assert set().union(*(g.features for g in GPUS.values())) <= set(FEATURES)


def test_unknown_feature_is_an_error():
    with pytest.raises(ValueError, match="unknown hardware feature"):
        has(GPUS["h100"], "tensor_memory")


def test_peak_falls_back_to_fp16_where_no_native_path_exists():
    assert tc_peak_tflops(GPUS["a100"], "fp8") == 312.0
    assert tc_peak_tflops(GPUS["h100"], "fp4") == 989.4
    assert tc_peak_tflops(GPUS["rtx_5090"], "fp4") == 1676.0
    assert tc_peak_tflops(GPUS["h100"], "fp32") == GPUS["h100"].fp32_tflops
    assert 0.001 < LAUNCH_MS < 0.01
