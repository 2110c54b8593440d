"""Simulators of the transport-stream analyzer and the FM monitor (see README.md)."""
