"""RESP helpers shared by the scripts that talk to Redis and Cinnabar over raw sockets."""


def command(args):
    """args (bytes, str or numbers) as one RESP multi-bulk request."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)



class ServerError(str):
    """An error reply, its text without the leading '-'."""


class Connection:
    """A blocking connection that pipelines: send() many commands, then read() their replies.

    Replies come back as str (simple strings), bytes (bulk strings), int, None (nulls), lists,
    or a ServerError.
    """

    def __init__(self, port, timeout=60):
        import socket
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.f = self.sock.makefile("rb", buffering=1 << 16)

    def send(self, commands):
        self.sock.sendall(b"".join(command(args) for args in commands))

    def read(self):
        line = self.f.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return ServerError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)
            if len(data) != n + 2:
                raise ConnectionError("connection closed")
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
