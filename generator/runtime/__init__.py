"""Hand-written runtime that the generated validators, kernels and tests call."""
