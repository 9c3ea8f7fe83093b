package io.cinnabar.keyspace;

/** The data type of a stored value, as TYPE and SCAN TYPE name it. */
public enum ValueType {
    STRING("string"), LIST("list"), SET("set"), ZSET("zset"), HASH("hash"), STREAM("stream");

    private final String typeName;

    ValueType(String typeName) {
        this.typeName = typeName;
    }

    public String typeName() {
        return typeName;
    }

    public static ValueType of(Object value) {
        if (value instanceof byte[] || value instanceof GrowableString) return STRING;
        if (value instanceof TypedValue) return ((TypedValue) value).type();
        throw new IllegalStateException("unknown value class " + value.getClass());
    }

    public static ValueType byName(byte[] name) {
        String s = new String(name, java.nio.charset.StandardCharsets.ISO_8859_1);
        for (ValueType t : values()) {
            if (t.typeName.equalsIgnoreCase(s)) return t;
        }
        return null;
    }
}
