"""The LLM RL layer: games as text environments, adapters to trainers, advantages and social evaluation."""
