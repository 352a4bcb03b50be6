"""kernelstrain generator: a deterministic, analytic simulator of GPU-kernel optimization trajectories."""
