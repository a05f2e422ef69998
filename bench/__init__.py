"""The interpreter-overhead study: one package, one entry point (``python -m bench <command>``).

Run it from the checkout's root (``python -m bench --help``). The measuring
processes run under each mode's interpreter and environment, importing the
installed ``variants`` (never the checkout's), with this package reached
through ``bench.layout.module_command``.

Layout, in the order data flows:

* ``__main__``: the commands (run, quick, compare, report, stability, bytecode, memory, envs,
  docs, peers)
* ``interpreters``: the one table of interpreters and modes (the study's columns)
* ``envs``: each interpreter's environment; ``layout``: where things live
* ``columns``: the modes of a run, and how to call a bench function in one (``Column.call``)
* ``machine``: the CPU, the running interpreter, steal time
* ``stats``: a case's time, ratios and their rerun intervals over processes (the report's API)
* ``timing``: the one timing core (loop timers, calibration, JIT warm-up, interleaving)
* ``targets``: what can be measured here: the registry's variants and the reference rows
* ``cases``: the study's benchmarks (JMH's MessageDigests shapes) and their timers
* ``worker``: the measuring process the conductor drives, one per mode and pass
* ``study``: the conductor: passes until the ratios settle, study.json and values.json
* ``report``, ``plots``, ``docs``, ``fmt``: the tables, figures and docs from a run's JSON
* ``stability``: do two runs agree? shares within 10 % / 20 %, coverage, half-widths
* ``callgrind``: machine instructions per byte under valgrind, identical run to run
* ``bytecode``: bytecode, calls and instructions per block, per mode
* ``memory``: peak memory and allocations (memray)
* ``compare``: quick "A against B" case sets (native, batch, cli, variants, tricks)
* ``peers``, ``peers_measure``: digest_column against DuckDB, polars-hash, chdb
"""
