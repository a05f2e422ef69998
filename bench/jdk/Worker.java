import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The study's worker in Java: the protocol of bench/ (version 1), one JSON request a line on
 * stdin, one JSON answer a line on stdout, flushed; anything else goes to stderr. JDK only.
 *
 * <pre>
 *   javac --release 17 -d DIR bench/jdk/*.java
 *   java FLAGS -XX:+DisplayVMOutputToStderr -Xlog:disable -Xlog:all=warning:stderr -cp DIR Worker
 * </pre>
 *
 * The study's JDK modes are FLAGS: Server, none; C1, -XX:TieredStopAtLevel=1; intrinsics off,
 * -XX:+UnlockDiagnosticVMOptions -XX:-UseMD5Intrinsics -XX:-UseSHA256Intrinsics; -Xint; Zero,
 * -zero (Debian's openjdk-17-jre-zero). The VM prints its own messages (warnings,
 * -XX:+PrintCompilation) on stdout unless given -XX:+DisplayVMOutputToStderr, and its unified
 * log's warnings (JDK 25's Zero: one about its class-data archive) unless sent elsewhere with
 * -Xlog: give both.
 * -XX:+UnlockDiagnosticVMOptions lets the list answer read UseMD5Intrinsics,
 * UseSHA256Intrinsics, UseSHA1Intrinsics and UseSHA512Intrinsics (diagnostic flags) and
 * changes nothing else.
 *
 * <p>Variants: "helpers", "streamlined" (kind "interpreted": bytecode the VM interprets or
 * compiles) and "MessageDigest" (kind "reference": the SUN provider's code, with the VM's
 * intrinsics where it has them); benchmarks "digest" and "getAndDigest" ({@link Case});
 * timing as bench/core/timing.py ({@link Timed}). Timing follows JMH's design where the protocol
 * leaves room: a blackhole ({@link Case#sink}), a bulk warm-up of every variant before the
 * first case (see bulkWarmUp), forks (a worker per mode and pass: the conductor's).
 */
public final class Worker {
    /** The default grid (bench/catalog/cases.py's Grid). */
    private static final List<Object> LENGTHS = List.of(64L, 1024L, 16384L, 1048576L);
    private static final long GET_MAX = 1024;
    /** The VM flags the list answer reports (absent where the VM has no such flag). */
    private static final List<String> FLAGS = List.of("UseMD5Intrinsics", "UseSHA256Intrinsics",
            "UseSHA1Intrinsics", "UseSHA512Intrinsics");

    private final Map<String, Timed> prepared = new LinkedHashMap<>();
    private boolean bulkDone;

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(
                new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err); // nothing but answers on stdout
        BufferedReader in = new BufferedReader(
                new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Worker worker = new Worker();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            Object answer;
            try {
                Map<String, Object> request = object(Json.parse(line), "request");
                String op = string(request, "op");
                if (op.equals("quit")) {
                    break;
                }
                answer = worker.answer(op, request);
            } catch (Exception | AssertionError exc) {
                answer = Map.of("error", exc.getClass().getSimpleName() + ": " + exc.getMessage());
            }
            out.println(Json.write(answer));
            out.flush();
        }
        out.flush();
        System.exit(0);
    }

    private Object answer(String op, Map<String, Object> request) throws Exception {
        switch (op) {
            case "list":
                return list(request);
            case "prepare":
                return prepare(request);
            case "value":
                return value(request);
            case "hash":
                return hash(request);
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    // --- list ---------------------------------------------------------------------------

    private static Map<String, Object> list(Map<String, Object> request) {
        List<Object> patterns = listOr(request, "variants", List.of());
        List<Object> algorithms = listOr(request, "algorithms", List.of("md5", "sha256"));
        List<Object> benchmarks = listOr(request, "benchmarks", new ArrayList<>(Case.BENCHMARKS));
        Map<String, Object> grid = request.get("grid") == null
                ? Map.of()
                : object(request.get("grid"), "grid");
        List<Object> lengths = listOr(grid, "lengths", LENGTHS);
        long getMax = grid.get("get_max") == null ? GET_MAX : number(grid, "get_max").longValue();

        List<Variants.Variant> chosen = new ArrayList<>();
        Map<String, Object> variants = new LinkedHashMap<>();
        for (Variants.Variant v : Variants.all()) {
            if (matches(patterns, v.name)) {
                chosen.add(v);
                variants.put(v.name, v.info());
            }
        }
        List<String> cases = new ArrayList<>();
        for (Object benchmark : benchmarks) {
            if (!Case.BENCHMARKS.contains(benchmark)) {
                continue; // block and batch: the Java variants have neither
            }
            for (Object length : lengths) {
                long n = ((Number) length).longValue();
                if (benchmark.equals("getAndDigest") && n > getMax) {
                    continue;
                }
                for (Object algorithm : algorithms) {
                    for (Variants.Variant v : chosen) {
                        if (v.unavailable == null && v.factories.containsKey(algorithm)) {
                            cases.add(benchmark + "/" + algorithm + "/" + v.name + "/" + n);
                        }
                    }
                }
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("runtime", runtime());
        answer.put("variants", variants);
        answer.put("cases", cases);
        return answer;
    }

    /** Whether {@code name} matches one of the names or globs (* ? [..]); none: everything. */
    static boolean matches(List<Object> patterns, String name) {
        if (patterns.isEmpty()) {
            return true;
        }
        for (Object pattern : patterns) {
            StringBuilder regex = new StringBuilder();
            for (char ch : String.valueOf(pattern).toCharArray()) {
                if (ch == '*') {
                    regex.append(".*");
                } else if (ch == '?') {
                    regex.append('.');
                } else if (ch == '[' || ch == ']') {
                    regex.append(ch);
                } else {
                    regex.append(Pattern.quote(String.valueOf(ch)));
                }
            }
            if (Pattern.matches(regex.toString(), name)) {
                return true;
            }
        }
        return false;
    }

    /** What the study records of this VM. */
    static Map<String, Object> runtime() {
        Map<String, Object> info = new LinkedHashMap<>();
        String runtimeName = System.getProperty("java.runtime.name", "");
        info.put("implementation", runtimeName.contains("OpenJDK") ? "OpenJDK" : runtimeName);
        info.put("version", System.getProperty("java.version"));
        for (String key : new String[] {"java.vm.name", "java.vm.version", "java.vm.info",
                "java.vm.vendor", "java.home"}) {
            info.put(key, System.getProperty(key));
        }
        info.put("input_arguments", ManagementFactory.getRuntimeMXBean().getInputArguments());
        info.put("jit", Timed.jitName() != null);
        info.put("jit_name", Timed.jitName());
        HotSpotDiagnosticMXBean hotspot =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        List<String> unread = new ArrayList<>();
        for (String flag : FLAGS) {
            try {
                VMOption option = hotspot.getVMOption(flag);
                info.put(flag, Boolean.valueOf(option.getValue()));
            } catch (IllegalArgumentException noSuchFlag) {
                unread.add(flag); // absent: no such flag, or a diagnostic one still locked
            }
        }
        if (!unread.isEmpty() && !hotspot.getVMOption("UnlockDiagnosticVMOptions").getValue()
                .equals("true")) {
            info.put("flags_locked", String.join(", ", unread)
                    + ": diagnostic flags, read only with -XX:+UnlockDiagnosticVMOptions");
        }
        return info;
    }

    // --- prepare, value -------------------------------------------------------------------

    private Map<String, Object> prepare(Map<String, Object> request) throws Exception {
        double minTime = number(request, "min_time").doubleValue();
        Object jitAsked = request.get("jit");
        boolean jit = jitAsked == null ? Timed.jitName() != null : Boolean.TRUE.equals(jitAsked);
        double[] jitWarm = {Timed.JIT_WARM_LEAST, Timed.JIT_WARM_MOST};
        if (request.get("jit_warm") != null) {
            List<Object> bounds = listOr(request, "jit_warm", List.of());
            for (int i = 0; i < 2; i++) {
                jitWarm[i] = ((Number) bounds.get(i)).doubleValue();
            }
        }
        boolean cpu = clock(request.get("clock"));
        if (jit && Timed.jitName() != null) {
            bulkWarmUp();
        }
        Map<String, Object> answers = new LinkedHashMap<>();
        for (Object item : listOr(request, "cases", List.of())) {
            long started = System.nanoTime();
            Map<String, Object> entry = object(item, "case");
            Case c = Case.parse(string(entry, "name"));
            c.check();
            Timed t = new Timed(c, cpu);
            long known = entry.get("loops") == null ? 0 : number(entry, "loops").longValue();
            t.prepare(minTime, jitWarm, known, jit);
            prepared.put(c.name, t);
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("loops", t.loops);
            answer.put("seconds", t.lastWall);
            answer.put("prepare_seconds", (System.nanoTime() - started) * 1e-9);
            answer.put("warmups", t.warmups);
            answer.put("warmed", t.warmed);
            answers.put(c.name, answer);
        }
        return Map.of("cases", answers);
    }

    /**
     * JMH's bulk warm-up, in the small, once per VM before the first case is warmed: every
     * variant of every algorithm runs through the worker's shared call sites (the time
     * function's update and digest, the shell's compress), so that the type profiles the JIT
     * compiles them from hold every class from the start. Without it the code a case runs
     * depends on which cases this VM prepared before it (monomorphic, inlined call sites that
     * later cases deoptimize); JMH avoids that with a VM per benchmark, which the study's
     * interleaved values cannot have.
     */
    private void bulkWarmUp() throws Exception {
        if (bulkDone) {
            return;
        }
        bulkDone = true;
        List<Case> everything = new ArrayList<>();
        for (Variants.Variant v : Variants.all()) {
            if (v.unavailable != null) {
                continue;
            }
            for (String algorithm : v.factories.keySet()) {
                for (String benchmark : Case.BENCHMARKS) {
                    everything.add(Case.parse(benchmark + "/" + algorithm + "/" + v.name + "/64"));
                }
            }
        }
        for (int round = 0; round < 300; round++) {
            for (Case c : everything) {
                c.run(4, false);
            }
        }
    }

    private static boolean clock(Object name) {
        if (name == null || name.equals("cpu") || name.equals("thread")) {
            Case.enableCpuClock();
            return true;
        }
        if (name.equals("wall")) {
            return false;
        }
        throw new IllegalArgumentException("unknown clock " + name);
    }

    private Map<String, Object> value(Map<String, Object> request) throws Exception {
        String name = string(request, "case");
        Timed t = prepared.get(name);
        if (t == null) {
            throw new IllegalArgumentException("case not prepared: " + name);
        }
        double value = t.value();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("value", value);
        answer.put("wall", t.lastWall);
        return answer;
    }

    // --- hash -------------------------------------------------------------------------------

    private static Map<String, Object> hash(Map<String, Object> request) throws Exception {
        Variants.Variant variant = Variants.get(string(request, "variant"));
        if (variant.unavailable != null) {
            throw new IllegalStateException(variant.name + ": " + variant.unavailable);
        }
        Hasher h = variant.factory(string(request, "algorithm")).create();
        byte[] message = unhex(string(request, "message"));
        int at = 0;
        for (Object size : listOr(request, "chunks", List.of())) {
            int n = ((Number) size).intValue();
            if (n < 0 || n > message.length - at) {
                throw new IllegalArgumentException("chunks exceed the message's " + message.length
                        + " bytes");
            }
            h.update(message, at, n);
            at += n;
        }
        h.update(message, at, message.length - at);
        return Map.of("digest", hex(h.digest()));
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(Character.forDigit((b >> 4) & 15, 16));
            out.append(Character.forDigit(b & 15, 16));
        }
        return out.toString();
    }

    static byte[] unhex(String text) {
        if (text.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex");
        }
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(text.charAt(2 * i), 16);
            int lo = Character.digit(text.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not hex: " + text.substring(2 * i, 2 * i + 2));
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return out;
    }

    // --- the requests' fields -------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String what) {
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException(what + " is not a JSON object");
        }
        return (Map<String, Object>) value;
    }

    private static String string(Map<String, Object> request, String key) {
        Object value = request.get(key);
        if (!(value instanceof String)) {
            throw new IllegalArgumentException("\"" + key + "\" must be a string");
        }
        return (String) value;
    }

    private static Number number(Map<String, Object> request, String key) {
        Object value = request.get(key);
        if (!(value instanceof Number)) {
            throw new IllegalArgumentException("\"" + key + "\" must be a number");
        }
        return (Number) value;
    }

    /** The list at {@code key}, or {@code fallback} if it is missing, null or empty. */
    @SuppressWarnings("unchecked")
    private static List<Object> listOr(Map<String, Object> request, String key,
            List<Object> fallback) {
        Object value = request.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof List)) {
            throw new IllegalArgumentException("\"" + key + "\" must be a list");
        }
        List<Object> list = (List<Object>) value;
        return list.isEmpty() ? fallback : list;
    }
}
