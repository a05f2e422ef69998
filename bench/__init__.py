"""The interpreter-overhead study: one package, one entry point (``python -m bench <command>``).

Run it from the checkout's root (``python -m bench --help``). Its parts (``LAYERS``), in the
order data flows, each importing only those before it (and itself); a test parses every
import and holds them to it:

* ``core``: the standard library's tools every interpreter runs: ``timing`` (the one timing
  core), ``stats`` (a case's time, ratios, their rerun intervals), ``protocol`` (the one
  child-process protocol), ``machine`` (the CPU, the running interpreter), ``fmt`` (numbers
  and tables);
* ``catalog``: what is measured: ``modes`` (the interpreters and the modes they run in: the
  study's columns), ``targets`` and ``cases`` (the rows and the benchmarks), ``columns`` (a
  mode and what its worker lists), ``comparisons`` (the one list of the ratios that matter),
  ``tables`` (every table of the report, in those words), ``study`` (what a study is: its
  cases, tables, headline, header record, checks and counters, one typed interface), its two
  implementations ``hash_study`` and ``styles_study`` (a user's styles file, ``styles``), and
  ``studies`` (a study read back from a run's record);
* ``store``: every result file, written and read there only: a run's one typed record, the
  other kinds' records (``bench.store``'s ``FORMAT``), and the runs kept in the repository
  (``bench.store.kept``: ``python -m bench runs keep|list|drop``);
* ``conduct``: ``options`` (a measuring command's options, typed), ``envs`` (each runtime's
  environment), ``launch`` (starting a process in a
  mode), ``worker`` (the measuring process it starts: core and catalog only, under every
  interpreter), ``effort`` (how hard a run measures, its options), ``passes`` (taking a
  pass: the workers, the groups, their rounds), ``conductor`` (the run: passes planned over
  stretches of time, and when to stop);
* ``profile``: ``callgrind``, ``instructions``, ``bytecode``, ``memory``, and ``counters`` (the
  counts a study takes after measuring, by name);
* ``report`` (reads records and writes pages; it starts no process): ``answers`` (verdicts,
  trust), ``figures``, ``pages`` (a run's page and
  docs/study.md's), ``readme`` (the README's sections), ``machines`` (the answer across every
  kept machine), ``plots``, ``stability`` (do two runs agree? on one machine, the report's
  rerun line; on two, what the CPU moves) and ``publish`` (writing them);
* ``product``: the product's benchmarks: ``peers`` and ``engines`` (digest_column against
  DuckDB, polars-hash, chdb), ``checks`` (the drop-in, batches, columns, the command line),
  ``bench_many.c`` and ``bench_kernels.c`` (the many-kernels and the single-message kernels
  against OpenSSL, from C, sharing ``bench_c.h``);
* ``check``: quick A-against-B checks, the study's and the product's;
* ``__main__``: the entry point, over them all; its ``pipeline`` runs every study the same way:
  measure (``conduct``) -> count (``profile.counters``) -> report (``report``) -> keep
  (``store.kept``).
"""

#: The parts, each importing only those before it; a top-level module is its own part.
LAYERS = ("core", "catalog", "store", "conduct", "profile", "report", "product", "check")
#: The top-level modules that belong to a part of another name (none now).
PART_OF: dict[str, str] = {}
