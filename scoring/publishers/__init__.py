"""The publishers' own files: their formats converted to the JSONL contracts, their releases by name and shape."""
