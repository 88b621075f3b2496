"""Learned candidate ranking: candidates and their features, and rankers shipped as data."""
