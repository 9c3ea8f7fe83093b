package io.cinnabar.command.connection;

import io.cinnabar.command.CommandError;

/** Client name rules shared by HELLO SETNAME and CLIENT SETNAME. */
public final class ClientNames {
    private ClientNames() {}

    /** Redis refuses spaces, newlines and other non-printable characters in names. */
    public static void validate(byte[] name) {
        for (byte b : name) {
            if (b < '!' || b > '~') {
                throw new CommandError("ERR Client names cannot contain spaces, newlines or special characters.");
            }
        }
    }
}
