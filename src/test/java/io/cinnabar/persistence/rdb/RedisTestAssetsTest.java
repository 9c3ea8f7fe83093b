package io.cinnabar.persistence.rdb;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The RDB files of Redis 7.0.15's own test suite (older format versions and encodings: zipmap,
 * ziplists, quicklists of ziplists, corrupt files), read where the unpacked source lies. Skipped
 * when it is not there; the files are not copied into this repository.
 */
class RedisTestAssetsTest {
    private static final Path ASSETS = Path.of(System.getProperty("user.home"),
            ".cache/cinnabar-compat/redis-7.0.15/tests/assets");

    private static byte[] asset(String name) throws IOException {
        Path p = ASSETS.resolve(name);
        assumeTrue(Files.isReadable(p), "Redis test assets not present at " + ASSETS);
        return Files.readAllBytes(p);
    }

    private static Loaded load(String name, RdbLoadOptions options) throws IOException {
        return Loaded.read(asset(name), options);
    }

    /** The items of a value as text, in the order Redis's commands list them. */
    private static String text(Loaded.Key k) {
        List<String> out = new ArrayList<>();
        for (byte[] item : Rendered.items(k.value())) out.add(new String(item, StandardCharsets.ISO_8859_1));
        return Rendered.type(k.value()) + " " + Rendered.encoding(k.value()) + " " + String.join(",", out);
    }

    @Test
    void version4FileWithEveryOldEncoding() throws IOException {
        Loaded l = load("encodings.rdb", RdbLoadOptions.DEFAULTS);
        assertEquals(4, l.version);
        Map<String, String> expected = Map.ofEntries(
                Map.entry("compressible", "string raw " + "a".repeat(137)),
                Map.entry("hash", "hash listpack a,1,aa,10,aaa,100,b,2,bb,20,bbb,200,c,3,cc,30,ccc,300,ddd,400,eee,5000000000"),
                Map.entry("hash_zipped", "hash listpack a,1,b,2,c,3"),
                Map.entry("list", "list quicklist " + "1,2,3,a,b,c,100000,6000000000,".repeat(3).replaceAll(",$", "")),
                Map.entry("list_zipped", "list quicklist 1,2,3,a,b,c,100000,6000000000"),
                Map.entry("number", "string int 10"),
                Map.entry("set", "set hashtable 1,100000,2,3,6000000000,a,b,c"),
                Map.entry("set_zipped_1", "set intset 1,2,3,4"),
                Map.entry("set_zipped_2", "set intset 100000,200000,300000,400000"),
                Map.entry("set_zipped_3", "set intset 1000000000,2000000000,3000000000,4000000000,5000000000,6000000000"),
                Map.entry("string", "string embstr Hello World"),
                Map.entry("zset", "zset listpack a,1,b,2,c,3,aa,10,bb,20,cc,30,aaa,100,bbb,200,ccc,300,aaaa,1000,cccc,123456789,bbbb,5000000000"),
                Map.entry("zset_zipped", "zset listpack a,1,b,2,c,3"));
        assertEquals(expected.size(), l.keys.size());
        for (Map.Entry<String, String> e : expected.entrySet()) assertEquals(e.getValue(), text(l.get(0, e.getKey())), e.getKey());
    }

    @Test
    void zipmapHashConvertsByEntriesAndByValueSize() throws IOException {
        assertEquals("hash listpack f1,v1,f2,v2", text(load("hash-zipmap.rdb", RdbLoadOptions.DEFAULTS).get(0, "hash")));
        RdbLoadOptions oneEntry = new RdbLoadOptions(1, 64, 128, 64, 512, -2, 0, false);
        assertEquals("hash hashtable f1,v1,f2,v2", text(load("hash-zipmap.rdb", oneEntry).get(0, "hash")));
        RdbLoadOptions tinyValues = new RdbLoadOptions(512, 1, 128, 64, 512, -2, 0, false);
        assertEquals("hash hashtable f1,v1,f2,v2", text(load("hash-zipmap.rdb", tinyValues).get(0, "hash")));
    }

    @Test
    void ziplistHashAndZsetConvertPastTheEntryLimit() throws IOException {
        assertEquals("hash listpack f1,v1,f2,v2", text(load("hash-ziplist.rdb", RdbLoadOptions.DEFAULTS).get(0, "hash")));
        RdbLoadOptions oneEntry = new RdbLoadOptions(1, 64, 1, 64, 512, -2, 0, false);
        assertEquals("hash hashtable f1,v1,f2,v2", text(load("hash-ziplist.rdb", oneEntry).get(0, "hash")));
        assertEquals("zset listpack one,1,two,2", text(load("zset-ziplist.rdb", RdbLoadOptions.DEFAULTS).get(0, "zset")));
        assertEquals("zset skiplist one,1,two,2", text(load("zset-ziplist.rdb", oneEntry).get(0, "zset")));
    }

    @Test
    void quicklistOfZiplists() throws IOException {
        Loaded l = load("list-quicklist.rdb", RdbLoadOptions.DEFAULTS);
        assertEquals(8, l.version);
        assertEquals("string int 7", text(l.get(0, "x")));
        assertTrue(text(l.get(0, "list")).startsWith("list quicklist 7"), text(l.get(0, "list")));
    }

    @Test
    void luaAuxFieldIsReportedAndIgnored() throws IOException {
        Loaded l = load("scriptbackup.rdb", RdbLoadOptions.DEFAULTS);
        assertEquals(0, l.keys.size());
        assertEquals("return redis.call('set', 'foo', 'bar')", new String(l.aux.get("lua"), StandardCharsets.US_ASCII));
    }

    @Test
    void emptyCollectionsAreSkippedWithOrWithoutSanitizing() throws IOException {
        for (boolean deep : new boolean[] {false, true}) {
            Loaded l = load("corrupt_empty_keys.rdb", RdbLoadOptions.DEFAULTS.withDeepSanitize(deep));
            assertEquals(0, l.keys.size());
            assertEquals(List.of("set", "list_quicklist", "list_quicklist_empty_ziplist", "list_ziplist", "hash",
                    "hash_ziplist", "zset", "zset_ziplist", "zset_listpack").stream().sorted().toList(),
                    l.emptyKeys.stream().sorted().toList());
        }
    }

    @Test
    void corruptZiplistFailsItsIntegrityCheck() throws IOException {
        // Read outside assertThrows: a missing asset skips the test instead of failing it.
        byte[] file = asset("corrupt_ziplist.rdb");
        RdbFormatException e = assertThrows(RdbFormatException.class,
                () -> Loaded.read(file, RdbLoadOptions.DEFAULTS));
        assertEquals(RdbFormatException.Kind.CORRUPT, e.kind());
        assertTrue(e.reason().contains("integrity check failed"), e.getMessage());
    }
}
