/**
 * Redis 7.0's multi-part append-only file, as building blocks that start no threads and know
 * nothing of the keyspace or the dispatcher; the caller supplies those as callbacks.
 *
 * <h2>Start-up (Redis's main: aofLoadManifestFromDisk, loadDataFromDisk, aofOpenIfNeededOnServerStart)</h2>
 * <pre>{@code
 * AofLayout layout = new AofLayout(dir, appenddirname, appendfilename);
 * AofManifest manifest = AofManifest.loadFromDisk(layout);   // AofManifestException: already logged, exit(1)
 * if (appendonly) {
 *     AofLoader.Result r = new AofLoader(layout, aofLoadTruncated, rdbReader, replay).loadAll(manifest);
 *     // FAILED or OPEN_ERR: exit(1); otherwise log "DB loaded from append only file" unless NOT_EXIST
 *     manifest = r.manifest();
 * }
 * AofFiles files = new AofFiles(layout, manifest, clock);
 * if (appendonly) files.openOnStartup(aofUseRdbPreamble, out -> writeEmptySnapshot(out));
 * }</pre>
 *
 * <h2>Persistence thread</h2>
 * {@link io.cinnabar.persistence.aof.AofFiles#append(byte[], int)} per batch from the write feed,
 * {@link io.cinnabar.persistence.aof.AofFiles#fsync()} per appendfsync; a rewrite is
 * {@code startRewrite()}, the snapshot written to the returned temp file (an RDB, or
 * {@link io.cinnabar.persistence.aof.AofRewriteEmitter} commands), then {@code finishRewrite} or
 * {@code abortRewrite()}.
 */
package io.cinnabar.persistence.aof;
