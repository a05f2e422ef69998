import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One case of the study, "benchmark/algorithm/variant/length", and its time function: the
 * clock's seconds for {@code loops} operations. The benchmarks are JMH's MessageDigests:
 * "digest" (update, digest on one reused object; digest() resets it) and "getAndDigest" (a new
 * object each operation: for MessageDigest, getInstance(name, "SUN") as JMH does).
 */
final class Case {
    static final List<String> BENCHMARKS = List.of("digest", "getAndDigest");
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /**
     * The blackhole: every digest's first and last bytes are summed, and the sum is added here
     * after the loop, so that no operation's result is dead (JMH's Blackhole.consume, in the
     * small: a volatile write the JIT must keep, of a value every operation feeds).
     */
    static volatile int sink;

    final String name;
    final String benchmark;
    final String algorithm;
    final Variants.Variant variant;
    final byte[] data;
    private final Variants.Factory factory;
    private final boolean fresh;
    private Hasher reused;

    private Case(String name, String benchmark, String algorithm, Variants.Variant variant,
            int length) {
        this.name = name;
        this.benchmark = benchmark;
        this.algorithm = algorithm;
        this.variant = variant;
        this.data = pattern(length);
        this.factory = variant.factory(algorithm);
        this.fresh = benchmark.equals("getAndDigest");
    }

    /** The case {@code name} names (IllegalArgumentException for one this worker has not). */
    static Case parse(String name) {
        String[] parts = name.split("/", -1);
        if (parts.length != 4 || !BENCHMARKS.contains(parts[0])
                || !Variants.ALGORITHMS.contains(parts[1]) || !parts[3].matches("[0-9]{1,9}")) {
            throw new IllegalArgumentException("unknown case " + name);
        }
        Variants.Variant variant = Variants.get(parts[2]);
        if (variant.unavailable != null) {
            throw new IllegalStateException(name + ": " + variant.unavailable);
        }
        return new Case(name, parts[0], parts[1], variant, Integer.parseInt(parts[3]));
    }

    /** The JDK digest benchmarks' message: byte i is i & 0xff. */
    static byte[] pattern(int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) i;
        }
        return data;
    }

    /** Nanoseconds of the clock: the measuring thread's CPU time, or a monotonic wall clock. */
    static long now(boolean cpu) {
        return cpu ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** Make the thread CPU clock usable (it is on by default in HotSpot; say so if not). */
    static void enableCpuClock() {
        if (!THREADS.isCurrentThreadCpuTimeSupported()) {
            throw new UnsupportedOperationException("this VM has no thread CPU time");
        }
        if (!THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
    }

    /** The time function: seconds by the clock for {@code loops} operations. */
    double run(long loops, boolean cpu) throws GeneralSecurityException {
        byte[] message = data;
        int length = message.length;
        int sum = 0;
        long start;
        if (fresh) {
            Variants.Factory make = factory;
            start = now(cpu);
            for (long i = 0; i < loops; i++) {
                Hasher h = make.create();
                h.update(message, 0, length);
                byte[] out = h.digest();
                sum += out[0] + out[out.length - 1];
            }
        } else {
            Hasher h = reused();
            start = now(cpu);
            for (long i = 0; i < loops; i++) {
                h.update(message, 0, length);
                byte[] out = h.digest();
                sum += out[0] + out[out.length - 1];
            }
        }
        long end = now(cpu);
        sink += sum;
        return (end - start) * 1e-9;
    }

    private Hasher reused() throws GeneralSecurityException {
        if (reused == null) {
            reused = factory.create();
        }
        return reused;
    }

    /**
     * The digests of "abc": RFC 1321 A.5, FIPS 180-2's appendices A.1, B.1, C.1, D.1 and its
     * change notice's, NIST's examples for SHA-512/224 and SHA-512/256.
     */
    private static final Map<String, String> ABC = Map.of(
            "md5", "900150983cd24fb0d6963f7d28e17f72",
            "sha224", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
            "sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "sha1", "a9993e364706816aba3e25717850c26c9cd0d89d",
            "sha384", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
                    + "8086072ba1e7cc2358baeca134c825a7",
            "sha512", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                    + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            "sha512_224", "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa",
            "sha512_256", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23");

    /**
     * Make sure the code this case times computes the right digest, else an AssertionError:
     * every variant on "abc" against the standards' digest; helpers and streamlined also
     * against the JDK's MessageDigest (SUN) on 200 bytes of the pattern fed as 70 + 130 (whole
     * blocks, a partial one, across a block boundary) and on the case's message, twice on the
     * object the case reuses (digest() must have reset it).
     */
    void check() throws GeneralSecurityException {
        byte[] abc = {'a', 'b', 'c'};
        if (!Worker.hex(digest(factory.create(), abc, 1)).equals(ABC.get(algorithm))) {
            throw new AssertionError(name + ": " + variant.name + " hashes \"abc\" wrongly");
        }
        if (variant.name.equals(Variants.REFERENCE)) {
            return;
        }
        byte[] probe = pattern(200);
        expect(digest(factory.create(), probe, 70), probe, "200 bytes in two updates");
        Hasher h = reused();
        for (int round = 1; round <= 2; round++) {
            expect(digest(h, data, data.length), data, "its message (digest " + round + ")");
        }
    }

    private static byte[] digest(Hasher h, byte[] message, int first) {
        h.update(message, 0, first);
        h.update(message, first, message.length - first);
        return h.digest();
    }

    private void expect(byte[] got, byte[] message, String what) throws GeneralSecurityException {
        byte[] want = Variants.jdk(algorithm).digest(message);
        if (!Arrays.equals(got, want)) {
            throw new AssertionError(name + ": " + variant.name + " hashes " + what + " wrongly");
        }
    }
}
