"""The interpreter-overhead study and its tools, one job per module.

Run each as a module from the checkout's root (``python -m bench.study``).
The measuring processes run under each interpreter's environment, importing the
installed ``variants`` (never the checkout's), with this package reached
through ``bench.layout.module_command``.

Layout, in the order data flows:

* ``layout``: where things live; how to start a bench module under another interpreter
* ``fmt``: every number and table the reports print
* ``machine``: the CPU and the running interpreter
* ``stats``: medians, paired ratios and their confidence intervals
* ``timing``: the one timing core (loop timers, calibration, JIT warm-up, interleaving)
* ``targets``: what can be measured here: the registry's variants and the reference rows
* ``cases``: the study's benchmarks (JMH's MessageDigests shapes) and their timers
* ``worker``: the measuring process the study's conductor drives, one per interpreter
* ``study``: the conductor (``nox -s bench``): plans, interleaves interpreters, writes JSON
* ``report``: the study's ratio tables from a run's JSON: ``report.md``, ``summary.json``
* ``plots``: the figures, from ``summary.json``
* ``stability``: do two runs agree? every ratio of one against the other
* ``callgrind``: machine instructions per byte under valgrind, identical run to run
* ``bytecode``: ``nox -s bytecode``: bytecode, calls and instructions per block, per interpreter
* ``memory``: ``nox -s memory``: peak memory and allocations (memray)
* ``docs``: the README's headline results and ``docs/study.md``, from the JSON of the runs
* ``compare``, ``tricks``, ``native_targets``, ``cli_targets``: quick side-by-side timings
"""
