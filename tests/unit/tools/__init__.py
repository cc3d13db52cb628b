"""Tests for ggd.tools."""
