"""Trained models shipped as data files (written by scripts/train_ranker.py)."""
