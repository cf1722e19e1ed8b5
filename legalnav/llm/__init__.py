"""The LLM layer: providers (Claude, offline), prompts, the call ledger and the price card."""
