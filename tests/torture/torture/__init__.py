"""ringside's torture suite (tests/torture/run). Each module in torture/attacks is one attack."""
