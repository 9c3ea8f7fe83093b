package io.cinnabar.command.acl;

/** A rule ACL SETUSER (or an ACL file) cannot apply, with Redis's ACLSetUserStringError text. */
final class AclRuleException extends RuntimeException {
    static final AclRuleException UNKNOWN = new AclRuleException("Unknown command or category name in ACL", true);
    static final AclRuleException SYNTAX = new AclRuleException("Syntax error", false);
    static final AclRuleException KEY_AFTER_ALL = new AclRuleException("Adding a pattern after the * pattern (or the "
            + "'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty "
            + "list of patterns", false);
    static final AclRuleException CHANNEL_AFTER_ALL = new AclRuleException("Adding a pattern after the * pattern (or the "
            + "'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty "
            + "list of channels", false);
    static final AclRuleException NO_SUCH_PASSWORD = new AclRuleException(
            "The password you are trying to remove from the user does not exist", false);
    static final AclRuleException BAD_HASH = new AclRuleException(
            "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters", false);
    static final AclRuleException FIRSTARG_OF_SUBCOMMAND = new AclRuleException(
            "Allowing first-arg of a subcommand is not supported", false);

    /** Redis's ENOENT: an unknown command or category (config files tolerate it until load time). */
    final boolean unknownName;

    private AclRuleException(String message, boolean unknownName) {
        super(message, null, false, false);
        this.unknownName = unknownName;
    }
}
