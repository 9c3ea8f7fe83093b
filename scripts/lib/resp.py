"""RESP helpers shared by the scripts that talk to Redis and Cinnabar over raw sockets."""


def command(args):
    """args (bytes, str or numbers) as one RESP multi-bulk request."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Connection:
    """A blocking connection that pipelines: send() many commands, then read() their replies.

    Replies come back as bytes (bulk and simple strings), int, None (null), lists, or an Error.
    """

    class Error(Exception):
        pass

    def __init__(self, port, host="127.0.0.1"):
        import socket
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb", buffering=1 << 20)

    def send(self, commands):
        self.sock.sendall(b"".join(command(c) for c in commands))

    def read(self):
        line = self.reader.readline()
        if not line:
            raise ConnectionError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest
        if kind == b"-":
            return Connection.Error(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.reader.read(n + 2)
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ConnectionError("unexpected reply %r" % line)

    def call(self, *args):
        self.send([args])
        return self.read()

    def close(self):
        self.sock.close()
