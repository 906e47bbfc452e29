"""PyTorch blocks of the test/models graphs for bench_models.py --models all:
one module per model, each with a CASES dict {(model, phase): make}."""
