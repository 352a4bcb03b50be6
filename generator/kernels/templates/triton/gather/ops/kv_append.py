@triton.jit
def {{KERNEL_NAME}}_kernel(
    k_ptr: "*{{TL_SIG}}", v_ptr: "*{{TL_SIG}}", slot_mapping_ptr: "*i64", k_cache_ptr: "*{{TL_SIG}}",
    v_cache_ptr: "*{{TL_SIG}}", token_elems: tl.int32, BLOCK_C: tl.constexpr,
):
    # reshape_and_cache: token t's K and V (H * D values each) go to cache slot slot_mapping[t]; -1 = padding.
    token = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + token)
    if slot >= 0:
        src = token.to(tl.int64) * token_elems
        _copy_row(k_ptr + src, k_cache_ptr + slot * token_elems, token_elems, BLOCK_C)
        _copy_row(v_ptr + src, v_cache_ptr + slot * token_elems, token_elems, BLOCK_C)


def {{OP}}(k, v, slot_mapping, k_cache, v_cache):
    """k, v: (T, H, D); slot_mapping: (T,) int64; k_cache, v_cache: (slots, H, D) (a paged cache viewed flat)."""
    T, H, D = k.shape
    _launch({{KERNEL_NAME}}_kernel, T, k, v, slot_mapping, k_cache, v_cache, H * D)
