"""Training agents on the JAX kernels (needs the `rl` extra: flax and optax).

`ippo` trains one policy shared by every seat with independent PPO, PureJaxRL style; `artifacts`
writes what a run produced; `policy_agent` seats a trained policy at an engine table.
"""
