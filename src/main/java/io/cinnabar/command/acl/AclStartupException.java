package io.cinnabar.command.acl;

/** The users of the config file or the ACL file cannot be loaded: the server does not start (Redis exits). */
public final class AclStartupException extends RuntimeException {
    public AclStartupException(String message) {
        super(message);
    }
}
