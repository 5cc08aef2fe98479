"""Memory Wall: where the memory of large-model training goes, and what ZeRO does about it."""

__version__ = "1.0.0"
