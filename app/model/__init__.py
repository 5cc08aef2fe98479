"""The memory and communication model of data-parallel training (numpy and stdlib only)."""
