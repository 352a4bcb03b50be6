@triton.jit
def {{KERNEL_NAME}}_kernel(
    k_cache_ptr: "*{{TL_SIG}}", v_cache_ptr: "*{{TL_SIG}}", block_mapping_ptr: "*i64", k_dst_ptr: "*{{TL_SIG}}",
    v_dst_ptr: "*{{TL_SIG}}", block_elems: tl.int32, BLOCK_C: tl.constexpr,
):
    # Pair i copies page block_mapping[i, 0] of K and V to page block_mapping[i, 1] (block_elems = P * H * D).
    pair = tl.program_id(0)
    src = tl.load(block_mapping_ptr + pair * 2) * block_elems
    dst = tl.load(block_mapping_ptr + pair * 2 + 1) * block_elems
    _copy_row(k_cache_ptr + src, k_dst_ptr + dst, block_elems, BLOCK_C)
    _copy_row(v_cache_ptr + src, v_dst_ptr + dst, block_elems, BLOCK_C)


def {{OP}}(k_cache, v_cache, block_mapping, k_dst, v_dst):
    """k_cache, v_cache, k_dst, v_dst: (pages, P, H, D); block_mapping: (NB, 2) int64 of (src, dst) pages."""
    block_elems = k_cache[0].numel()
    _launch({{KERNEL_NAME}}_kernel, block_mapping.shape[0], k_cache, v_cache, block_mapping, k_dst, v_dst,
            block_elems)
