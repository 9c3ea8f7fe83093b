package io.cinnabar.command.server;

import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.StreamListpack;
import io.cinnabar.persistence.rdb.Listpack;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What Redis's lpRepr and quicklistRepr print on stdout for DEBUG LISTPACK and DEBUG QUICKLIST: a
 * value's layout as Redis would hold it (the listpacks Redis would build from the same elements).
 */
final class StructureRepr {
    /** lpRepr prints this much of a long entry, then "...". */
    private static final int SHOWN = 40;

    private StructureRepr() {
    }

    static String listpack(byte[] lp) {
        StringBuilder out = new StringBuilder();
        int count = Listpack.headerCount(lp);
        out.append("{total bytes ").append(lp.length).append("} {num entries ").append(count).append("}\n");
        // Built again entry by entry, so each entry's offset is where the builder put it.
        Listpack.Builder again = new Listpack.Builder(lp.length);
        long base = 0x7f0000000000L | (System.identityHashCode(lp) & 0xffffffL) << 8;
        int[] index = {0};
        Listpack.walk(lp, new Listpack.EntryVisitor() {
            @Override
            public boolean string(byte[] buf, int off, int len) {
                int start = (int) again.bytes() - 1;
                again.add(buf, off, len);
                entry(start, (int) again.bytes() - 1 - start, buf, off, len);
                return true;
            }

            @Override
            public boolean integer(long value) {
                int start = (int) again.bytes() - 1;
                again.addInteger(value);
                byte[] text = Long.toString(value).getBytes(StandardCharsets.US_ASCII);
                entry(start, (int) again.bytes() - 1 - start, text, 0, text.length);
                return true;
            }

            private void entry(int offset, int total, byte[] buf, int off, int len) {
                int backlen = backlenOf(total);
                int header = headerSize(lp[offset] & 0xff);
                out.append("{\n\taddr: 0x").append(String.format("%08x", base + offset)).append(",\n")
                        .append("\tindex: ").append(String.format("%2d", index[0]++)).append(",\n")
                        .append("\toffset: ").append(offset).append(",\n")
                        .append("\thdr+entrylen+backlen: ").append(String.format("%2d", total)).append(",\n")
                        .append("\thdrlen: ").append(String.format("%3d", header)).append(",\n")
                        .append("\tbacklen: ").append(String.format("%2d", backlen)).append(",\n")
                        .append("\tpayload: ").append(total - backlen - header).append('\n')
                        .append("\tbytes: ");
                for (int i = 0; i < total; i++) out.append(String.format("%02x|", lp[offset + i] & 0xff));
                out.append("\n\t[str]").append(new String(buf, off, Math.min(len, SHOWN), StandardCharsets.ISO_8859_1));
                if (len > SHOWN) out.append("...");
                out.append("\n}\n");
            }
        });
        return out.append("{end}\n\n").toString();
    }

    /** quicklistRepr: the list's counts, then a line per node (and with full, its listpack). */
    static String quicklist(ListValue list, List<byte[]> nodes, long compress, boolean full) {
        StringBuilder out = new StringBuilder()
                .append("{count : ").append(list.size()).append("}\n")
                .append("{len : ").append(nodes.size()).append("}\n")
                .append("{fill : ").append(list.fill()).append("}\n")
                .append("{compress : ").append(compress).append("}\n")
                .append("{bookmark_count : 0}\n");
        for (int i = 0; i < nodes.size(); i++) {
            byte[] lp = nodes.get(i);
            out.append("{quicklist node(").append(i).append(")\n")
                    .append("{container : PACKED, encoding: RAW, size: ").append(lp.length)
                    .append(", count: ").append(Listpack.headerCount(lp))
                    .append(", recompress: 0, attempted_compress: 0}\n");
            if (full) out.append("{ listpack:\n").append(listpack(lp)).append("}\n}\n");
        }
        return out.toString();
    }

    /** Bytes of a listpack entry's header, by its first byte (lpCurrentEncodedSizeBytes). */
    private static int headerSize(int first) {
        if (first >= 0xe0 && first < 0xf0) return 2; // 12-bit string length
        return first == 0xf0 ? 5 : 1; // 32-bit string length; the rest fit in their first byte
    }

    /** The backlen's share of an entry of total bytes: the size whose lpEncodeBacklen of the rest it is. */
    private static int backlenOf(int total) {
        for (int b = 1; b < 5; b++) {
            if (StreamListpack.backlenSize(total - b) == b) return b;
        }
        return 5;
    }
}
