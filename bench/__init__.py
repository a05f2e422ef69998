"""The interpreter-overhead study: one package, one entry point (``python -m bench <command>``).

Run it from the checkout's root (``python -m bench --help``). Its parts, in the order data
flows, each importing only those before it:

* ``core``: what runs inside every interpreter (standard library only): ``timing`` (the one
  timing core), ``stats`` (a case's time, ratios, their rerun intervals), ``protocol`` (the one
  child-process protocol), ``worker`` (the measuring process), ``machine`` (the CPU, the
  running interpreter), ``fmt`` (numbers and tables);
* ``catalog``: what is measured: ``modes`` (the interpreters and the modes they run in: the
  study's columns), ``targets`` and ``cases`` (the rows and the benchmarks), ``columns`` (a
  mode and what its worker lists), ``comparisons`` (the one list of the ratios that matter);
* ``conduct``: ``envs`` (each runtime's environment), ``launch`` (starting a process in a
  mode), ``conductor`` (the run: passes over stretches of time);
* ``store``: a run's one typed record, written and read there only;
* ``report``: ``tables``, ``answers`` (verdicts, trust), ``pages``, ``plots``, ``publish``;
* ``stability`` (do two runs agree?) and ``check`` (quick A-against-B checks);
* ``profile``: ``callgrind``, ``bytecode``, ``memory``;
* ``product``: the product's benchmarks: ``peers`` and ``engines`` (digest_column against
  DuckDB, polars-hash, chdb), ``checks`` (the drop-in, batches, columns, the command line),
  ``bench_many.c`` (the many-kernels against OpenSSL, from C).
"""
