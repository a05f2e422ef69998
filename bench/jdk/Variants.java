import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The study's Java rows: the two coding styles and the JDK's own MessageDigest. */
final class Variants {
    static final String HELPERS = "helpers";
    static final String STREAMLINED = "streamlined";
    static final String REFERENCE = "MessageDigest";
    /** Every algorithm the variants compute ("hash" takes them all; the study times some). */
    static final List<String> ALGORITHMS = List.of("md5", "sha224", "sha256", "sha1", "sha384",
            "sha512", "sha512_224", "sha512_256");
    /** The JDK's names of them, for MessageDigest.getInstance. */
    private static final Map<String, String> JDK_NAMES = Map.of("md5", "MD5", "sha224", "SHA-224",
            "sha256", "SHA-256", "sha1", "SHA-1", "sha384", "SHA-384", "sha512", "SHA-512",
            "sha512_224", "SHA-512/224", "sha512_256", "SHA-512/256");
    /** The algorithms of the SHA-512 core (the JDK's SHA5 and its subclasses). */
    private static final List<String> SHA512_CORE =
            List.of("sha384", "sha512", "sha512_224", "sha512_256");
    /** The provider whose code the reference row runs (the seeds' JMH runs: provider=SUN). */
    static final String PROVIDER = "SUN";

    /** Makes a new, empty object of one algorithm of one variant. */
    interface Factory {
        Hasher create() throws GeneralSecurityException;
    }

    /** One variant: its kind, its description, a factory per algorithm, or why it cannot run. */
    static final class Variant {
        final String name;
        final String kind;
        final String description;
        final Map<String, Factory> factories = new LinkedHashMap<>();
        String unavailable;

        Variant(String name, String kind, String description) {
            this.name = name;
            this.kind = kind;
            this.description = description;
        }

        Factory factory(String algorithm) {
            Factory factory = factories.get(algorithm);
            if (factory == null) {
                throw new IllegalArgumentException(
                        "variant " + name + " has no algorithm " + algorithm);
            }
            return factory;
        }

        Map<String, Object> info() {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("kind", kind);
            info.put("description", description);
            info.put("algorithms", new ArrayList<>(factories.keySet()));
            info.put("unavailable", unavailable);
            return info;
        }
    }

    /** java.security.MessageDigest behind the study's interface. */
    static final class JdkDigest implements Hasher {
        private final MessageDigest md;

        JdkDigest(MessageDigest md) {
            this.md = md;
        }

        @Override
        public void update(byte[] data, int offset, int length) {
            md.update(data, offset, length);
        }

        @Override
        public byte[] digest() {
            return md.digest();
        }
    }

    /** A MessageDigest of {@code algorithm} ("md5", "sha256", ...) from the SUN provider. */
    static MessageDigest jdk(String algorithm) throws GeneralSecurityException {
        return MessageDigest.getInstance(JDK_NAMES.get(algorithm), PROVIDER);
    }

    private static final Map<String, Variant> ALL = new LinkedHashMap<>();

    static {
        styles(HELPERS, "a static method per round function and step (RFC 1321's F..II, FIPS"
                + " 180-4's Ch, Parity, Maj, Σ0, Σ1, σ0, σ1), as the JDK's SHA2 before 8256523"
                + " and its SHA5", Md5Helpers::new, Sha256Helpers::new, Sha1Helpers::new,
                Sha512Helpers::new);
        styles(STREAMLINED, "one block function, everything inlined, the state in locals,"
                + " as the JDK's SHA2 since 8256523 and its SHA", Md5Streamlined::new,
                Sha256Streamlined::new, Sha1Streamlined::new, Sha512Streamlined::new);
        Variant reference = add(REFERENCE, "reference",
                "java.security.MessageDigest.getInstance(name, \"SUN\"): the JDK's own code"
                        + " and, where the VM has them, its intrinsics");
        for (String algorithm : ALGORITHMS) {
            try {
                jdk(algorithm);
                reference.factories.put(algorithm, () -> new JdkDigest(jdk(algorithm)));
            } catch (GeneralSecurityException exc) {
                reference.unavailable = exc.getClass().getSimpleName() + ": " + exc.getMessage();
            }
        }
        if (reference.unavailable != null) {
            reference.factories.clear();
        }
    }

    /**
     * One of the two coding styles: its MD5, its SHA-256 core as SHA-224 and SHA-256, its SHA-1,
     * and its SHA-512 core as SHA-384, SHA-512, SHA-512/224 and SHA-512/256.
     */
    private static void styles(String name, String description, Factory md5,
            Function<Boolean, Hasher> sha256, Factory sha1, Function<String, Hasher> sha512) {
        Variant variant = add(name, "interpreted", description);
        variant.factories.put("md5", md5);
        variant.factories.put("sha224", () -> sha256.apply(true));
        variant.factories.put("sha256", () -> sha256.apply(false));
        variant.factories.put("sha1", sha1);
        for (String algorithm : SHA512_CORE) {
            variant.factories.put(algorithm, () -> sha512.apply(algorithm));
        }
    }

    private static Variant add(String name, String kind, String description) {
        Variant variant = new Variant(name, kind, description);
        ALL.put(name, variant);
        return variant;
    }

    /** Every variant, in the study's order. */
    static List<Variant> all() {
        return new ArrayList<>(ALL.values());
    }

    /** The variant named {@code name} (IllegalArgumentException if there is none). */
    static Variant get(String name) {
        Variant variant = ALL.get(name);
        if (variant == null) {
            throw new IllegalArgumentException("unknown variant " + name);
        }
        return variant;
    }

    private Variants() {}
}
