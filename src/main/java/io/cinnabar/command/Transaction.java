package io.cinnabar.command;

import java.util.ArrayList;
import java.util.List;

/** Commands queued between MULTI and EXEC, and whether an error already doomed them. */
public final class Transaction {
    final List<byte[][]> queued = new ArrayList<>();
    final List<CommandSpec> specs = new ArrayList<>();
    boolean dirty;

    public List<byte[][]> queued() { return queued; }
    public List<CommandSpec> specs() { return specs; }
    public boolean dirty() { return dirty; }
    public void markDirty() { dirty = true; }
}
