import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One prepared case: its loops, warm-ups and values, as the study's Python timing core
 * (bench/core/timing.py's Timed) does it: pyperf's calibration, then under a JIT warm-up until it
 * has settled.
 *
 * <p>The JIT's activity is read from java.lang.management: a value during which
 * CompilationMXBean.getTotalCompilationTime() changed is one during which the JIT compiled
 * something. That total is the compiler threads' time in whole milliseconds, summed over every
 * method the VM compiled (the worker's own too): a compilation shorter than what is left of a
 * millisecond may go unseen, and a compilation of anything counts. Deoptimizations are not
 * seen. Where the VM has no JIT (-Xint, Zero: no CompilationMXBean), no value has JIT
 * activity, and warm-up ends on the times alone.
 */
final class Timed {
    /** As bench/core/timing.py's, which a test checks (tests/test_jdk.py). */
    static final long MAX_LOOPS = 1L << 32;
    static final int WINDOW = 5;
    static final double DRIFT = 0.05;
    /** A JIT's warm-up, at least and at most (seconds), where a request names none. */
    static final double JIT_WARM_LEAST = 0.3;
    static final double JIT_WARM_MOST = 2.0;
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    final Case c;
    final boolean cpu;
    long loops;
    final List<List<Object>> warmups = new ArrayList<>();
    /** Wall seconds of the last call of the time function, and of them all. */
    double lastWall;
    double elapsed;
    boolean lastJit;
    boolean warmed = true;

    Timed(Case c, boolean cpu) {
        this.c = c;
        this.cpu = cpu;
    }

    /** Milliseconds the JIT has spent compiling so far (0 without a JIT or its monitoring). */
    static long jitMillis() {
        return JIT != null && JIT.isCompilationTimeMonitoringSupported()
                ? JIT.getTotalCompilationTime()
                : 0;
    }

    /** The VM's JIT ("HotSpot 64-Bit Tiered Compilers"), or null if it has none. */
    static String jitName() {
        return JIT == null ? null : JIT.getName();
    }

    /** Run the time function once at {@code n} loops: seconds per operation. */
    double call(long n) throws GeneralSecurityException {
        long compiled = jitMillis();
        long started = System.nanoTime();
        double raw = c.run(n, cpu);
        lastWall = (System.nanoTime() - started) * 1e-9;
        elapsed += lastWall;
        lastJit = jitMillis() != compiled;
        return raw / n;
    }

    /** One value at the loops found. */
    double value() throws GeneralSecurityException {
        return call(loops);
    }

    private double warmUp(long n) throws GeneralSecurityException {
        double value = call(n);
        warmups.add(List.of(n, value));
        return value;
    }

    /** Double the loops from 1 until one value lasts {@code minTime} (pyperf's calibration). */
    void calibrate(double minTime) throws GeneralSecurityException {
        long n = 1;
        while (warmUp(n) * n < minTime && n * 2 <= MAX_LOOPS) {
            n *= 2;
        }
        loops = n;
    }

    /**
     * Warm up until the JIT has settled: at least {@code shortest} seconds, at most
     * {@code longest}, and in between until it compiled nothing during the last WINDOW values
     * and their median is no longer faster than that of the WINDOW before by more than DRIFT.
     */
    void settle(double minTime, double shortest, double longest) throws GeneralSecurityException {
        double started = elapsed;
        List<Double> history = new ArrayList<>();
        int quiet = 0;
        while (true) {
            double value = warmUp(loops);
            history.add(value);
            quiet = lastJit ? 0 : quiet + 1;
            if (value * loops < minTime / 2 && loops * 2 <= MAX_LOOPS) {
                loops *= 2; // the JIT made it faster than calibrated for
            }
            double spent = elapsed - started;
            int n = history.size();
            boolean settled = spent >= shortest && n >= 2 * WINDOW && quiet >= WINDOW
                    && median(history.subList(n - WINDOW, n))
                            >= median(history.subList(n - 2 * WINDOW, n - WINDOW)) * (1 - DRIFT);
            if (settled) {
                return;
            }
            if (spent >= longest) {
                warmed = false;
                return;
            }
        }
    }

    /** Calibrate (or take {@code known} loops and one warm-up value), then settle under a JIT. */
    void prepare(double minTime, double[] jitWarm, long known, boolean jit)
            throws GeneralSecurityException {
        if (known > 0) {
            loops = known;
            if (!jit) {
                warmUp(loops);
            }
        } else {
            calibrate(minTime);
        }
        if (jit) {
            settle(minTime, jitWarm[0], jitWarm[1]);
        }
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
