package io.cinnabar.network;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

import javax.net.ssl.SSLException;
import java.io.IOException;

/**
 * Sits behind the TLS handler of a connection: a failed handshake (plain text on the TLS port, a
 * truncated ClientHello, a client without the certificate tls-auth-clients asks for, a peer that
 * hangs up) is logged in Redis's words and the socket closed; the TLS errors that follow it are not
 * the connection's business and never reach it. With tls-session-caching no, a session is not
 * kept for resumption.
 */
final class TlsErrors extends ChannelInboundHandlerAdapter {
    private final boolean sessionCaching;

    TlsErrors(boolean sessionCaching) {
        this.sessionCaching = sessionCaching;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (!done.isSuccess()) {
                NettyServer.log.warn("Error accepting a client connection: {}", reason(done.cause()));
                ctx.close();
                return;
            }
            if (!sessionCaching) {
                io.netty.handler.ssl.SslHandler tls = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
                if (tls != null) tls.engine().getSession().invalidate();
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof SSLException || root instanceof IOException) {
            NettyServer.log.debug("TLS connection closed: {}", reason(root));
            ctx.close();
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    private static String reason(Throwable cause) {
        if (cause instanceof DecoderException && cause.getCause() != null) cause = cause.getCause();
        // Netty's text for it carries a hex dump of whatever was sent: OpenSSL's words instead.
        if (cause instanceof NotSslRecordException) return "wrong version number (not a TLS record)";
        if (cause instanceof java.nio.channels.ClosedChannelException) return "connection closed during the handshake";
        String message = cause.getMessage();
        return message == null ? cause.getClass().getSimpleName() : message;
    }
}
