TOP_K = {{SHAPE_K}}
TOP_K_PAD = triton.next_power_of_2(TOP_K)


@triton.jit
def {{KERNEL_NAME}}_kernel(
    router_logits_ptr: "*fp32", topk_weights_ptr: "*fp32", topk_ids_ptr: "*i32", n_experts: tl.int32,
    BLOCK_V: tl.constexpr, TOP_K: tl.constexpr, TOP_K_PAD: tl.constexpr,
):
    # A router row (n_experts <= BLOCK_V) fits in one tile: softmax over the experts, TOP_K rounds of
    # argmax-and-mask over the logits (slot k gets the k-th largest, ties to the lower id: tl.max's indices break
    # ties to the left), then renormalize the chosen weights.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_V)
    x = tl.load(router_logits_ptr + row * n_experts + cols, mask=cols < n_experts, other=float("-inf"))
    p = tl.exp(x - tl.max(x, axis=0))
    p = p / tl.sum(p, axis=0)
    slots = tl.arange(0, TOP_K_PAD)
    weights = tl.zeros((TOP_K_PAD,), dtype=tl.float32)
    ids = tl.zeros((TOP_K_PAD,), dtype=tl.int32)
    for k in range(TOP_K):
        _, e = tl.max(x, axis=0, return_indices=True)
        weights = tl.where(slots == k, tl.sum(tl.where(cols == e, p, 0.0), axis=0), weights)
        ids = tl.where(slots == k, e, ids)
        x = tl.where(cols == e, float("-inf"), x)
    weights = weights / tl.sum(weights, axis=0)
    tl.store(topk_weights_ptr + row * TOP_K + slots, weights, mask=slots < TOP_K)
    tl.store(topk_ids_ptr + row * TOP_K + slots, ids, mask=slots < TOP_K)


def {{OP}}(router_logits, topk_weights, topk_ids):
    """router_logits: (T, E) fp32; topk_weights: (T, K) fp32, renormalized; topk_ids: (T, K) int32, each token's
    experts by descending weight (ties to the lower id), the order vLLM's fused_topk writes."""
    T, E = router_logits.shape
    {{KERNEL_NAME}}_kernel[(T,)](
        router_logits, topk_weights, topk_ids, E, BLOCK_V=BLOCK_V, TOP_K=TOP_K, TOP_K_PAD=TOP_K_PAD,
        num_warps=NUM_WARPS, num_stages=NUM_STAGES,
    )
