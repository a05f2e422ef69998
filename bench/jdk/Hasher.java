/**
 * What the worker times: the study's interface of every Java variant (JMH's MessageDigests
 * calls the same two methods of java.security.MessageDigest).
 */
interface Hasher {
    /** Hash {@code length} bytes of {@code data} from {@code offset}. */
    void update(byte[] data, int offset, int length);

    /** The digest of everything given since the last reset; the object is reset. */
    byte[] digest();
}
