package io.cinnabar.command;

/** Which commands run at once inside MULTI instead of being queued (Redis's processCommand list). */
final class TransactionControl {
    private TransactionControl() {}

    /**
     * Redis's execCommandAbort: a rejected EXEC ends the transaction with this text. Errors Redis
     * formats on the spot (arity, subscriber context) carry no ERR code inside it.
     */
    static String execAbort(String error) {
        return "EXECABORT Transaction discarded because of: " + (error.startsWith("ERR ") ? error.substring(4) : error);
    }

    static boolean isExec(CommandSpec spec) {
        return spec.parent == null && spec.name.equals("exec");
    }

    static boolean runsImmediately(CommandSpec spec) {
        switch (spec.parent == null ? spec.name : spec.parent.name) {
            case "exec":
            case "discard":
            case "multi":
            case "watch":
            case "quit":
            case "reset":
                return true;
            default:
                return false;
        }
    }

    /** Commands that are never refused for memory inside MULTI (Redis's processCommand OOM check). */
    static boolean endsOrLeavesTransaction(CommandSpec spec) {
        switch (spec.parent == null ? spec.name : spec.parent.name) {
            case "exec":
            case "discard":
            case "quit":
            case "reset":
                return true;
            default:
                return false;
        }
    }
}
