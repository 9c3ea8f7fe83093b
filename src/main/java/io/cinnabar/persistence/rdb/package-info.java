/**
 * Redis's RDB format (version 10, as Redis 7.0.15 writes it; versions 1 to 10 read) and the DUMP
 * payload, as a pure codec between bytes and keyspace value objects: no threads, sockets,
 * configuration objects or databases here.
 * <ul>
 * <li>{@link io.cinnabar.persistence.rdb.RdbWriter} streams a file: header and aux fields,
 * functions, per database SELECTDB/RESIZEDB and its keys, EOF and the CRC64 trailer.</li>
 * <li>{@link io.cinnabar.persistence.rdb.RdbReader} reads one and reports it to an
 * {@link io.cinnabar.persistence.rdb.RdbVisitor}; values get the encoding Redis would give them
 * under the {@link io.cinnabar.persistence.rdb.RdbLoadOptions} (the caller's config).</li>
 * <li>{@link io.cinnabar.persistence.rdb.DumpPayload} makes DUMP's payload and checks and reads
 * RESTORE's.</li>
 * <li>Bad bytes always end in {@link io.cinnabar.persistence.rdb.RdbFormatException}, which
 * carries the offset and which of Redis's log lines or replies applies.</li>
 * </ul>
 * The building blocks ({@link io.cinnabar.persistence.rdb.Crc64}, {@link io.cinnabar.persistence.rdb.Lzf},
 * {@link io.cinnabar.persistence.rdb.Listpack}, {@link io.cinnabar.persistence.rdb.Ziplist},
 * {@link io.cinnabar.persistence.rdb.Zipmap}, {@link io.cinnabar.persistence.rdb.IntsetBlob}) are
 * public for reuse (an AOF preamble, DEBUG LISTPACK-style introspection).
 */
package io.cinnabar.persistence.rdb;
