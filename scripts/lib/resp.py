"""RESP helpers shared by the scripts that talk to Redis and Cinnabar over raw sockets."""


def command(args):
    """args (bytes, str or numbers) as one RESP multi-bulk request."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)
