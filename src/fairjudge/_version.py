"""The package version, on the ground floor so any layer can report it."""

__all__ = ["__version__"]

__version__ = "0.1.0"
