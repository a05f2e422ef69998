"""The product's benchmarks: digest_column against the engines (``peers``), and the quick
checks of the drop-in, batches, columns and the command line (``checks``)."""
