import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the worker protocol needs, JDK only: objects (as LinkedHashMap), arrays
 * (List), strings, numbers (Long when integral and in range, else Double), true, false, null.
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** The value {@code text} holds (IllegalArgumentException if it is not one JSON value). */
    static Object parse(String text) {
        Json reader = new Json(text);
        Object value = reader.value();
        reader.space();
        if (reader.at != text.length()) {
            throw reader.error("trailing characters");
        }
        return value;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JSON: " + what + " at character " + at);
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private boolean take(char c) {
        space();
        if (at < text.length() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!take(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private Object value() {
        space();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        if (c == '{') {
            at++;
            Map<String, Object> map = new LinkedHashMap<>();
            if (!take('}')) {
                do {
                    space();
                    String key = string();
                    expect(':');
                    map.put(key, value());
                } while (take(','));
                expect('}');
            }
            return map;
        }
        if (c == '[') {
            at++;
            List<Object> list = new ArrayList<>();
            if (!take(']')) {
                do {
                    list.add(value());
                } while (take(','));
                expect(']');
            }
            return list;
        }
        if (c == '"') {
            return string();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word.equals("true"));
            }
        }
        return number();
    }

    private String string() {
        if (at >= text.length() || text.charAt(at) != '"') {
            throw error("expected a string");
        }
        at++;
        StringBuilder out = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(at++);
            int simple = "\"\\/bfnrt".indexOf(e);
            if (simple >= 0) {
                out.append("\"\\/\b\f\n\r\t".charAt(simple));
            } else if (e == 'u' && at + 4 <= text.length()) {
                try {
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                } catch (NumberFormatException ex) {
                    throw error("bad \\u escape");
                }
                at += 4;
            } else {
                throw error("bad escape");
            }
        }
    }

    private Number number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        String digits = text.substring(start, at);
        try {
            if (digits.matches("-?(0|[1-9][0-9]*)")) {
                try {
                    return Long.valueOf(digits);
                } catch (NumberFormatException tooLong) {
                    return Double.valueOf(digits);
                }
            }
            if (digits.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
                return Double.valueOf(digits);
            }
        } catch (NumberFormatException ex) {
            // falls through to the error below
        }
        throw error(digits.isEmpty() ? "unexpected character" : "bad number " + digits);
    }

    /** {@code value} as JSON on one line (maps, lists, strings, numbers, booleans, null). */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null || value instanceof Boolean || value instanceof Integer
                || value instanceof Long) {
            out.append(value);
        } else if (value instanceof Number) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                out.append("null"); // JSON has neither
            } else {
                out.append(d);
            }
        } else if (value instanceof Map) {
            out.append('{');
            String comma = "";
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                out.append(comma);
                writeString(String.valueOf(entry.getKey()), out);
                out.append(": ");
                write(entry.getValue(), out);
                comma = ", ";
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            String comma = "";
            for (Object item : (List<?>) value) {
                out.append(comma);
                write(item, out);
                comma = ", ";
            }
            out.append(']');
        } else {
            writeString(value.toString(), out);
        }
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
