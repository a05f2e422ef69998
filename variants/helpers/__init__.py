"""MD5, SHA-256, SHA-1 and SHA-512 block functions in the helper style.

The textbook way to write a hash: every named operation of the standard is a
small function (rotate, F/G/H/I, ch, maj, the sigmas, word loading, the
message schedule, one round step), and the block function calls them step by
step. This is how PyPy's pure-Python ``_md5`` and ``_sha256``, the JDK's
SHA-2 before JDK-8256523 and its SHA-512 (``sun.security.provider.SHA5``) are written.
"""
