package org.mucscale.openfire;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jivesoftware.openfire.Connection;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty channel under an Openfire c2s TCP connection, for writes that bypass {@code deliverRawText}'s two thread
 * hand-offs ({@link EventLoopWriteBatches}). Openfire's {@code NettyConnection} keeps its channel context private; the
 * field is resolved once, and when a future Openfire renames it the plugin says so once and writes through
 * {@code deliverRawText} instead.
 *
 * <p>Stateless after class initialisation; any thread.
 */
final class NettyChannels {
    private static final Logger LOG = LoggerFactory.getLogger(NettyChannels.class);
    private static final String NETTY_CONNECTION = "org.jivesoftware.openfire.nio.NettyConnection";
    /** Null when the field cannot be read. */
    private static final VarHandle CONTEXT = contextHandle();

    private NettyChannels() {
    }

    /** Whether {@code connection} is a c2s TCP stream (Openfire's Netty connection), not WebSocket or BOSH. */
    static boolean isTcp(Connection connection) {
        return connection != null && NETTY_CONNECTION.equals(connection.getClass().getName());
    }

    /** The Netty channel of a c2s TCP connection; null for others (WebSocket, BOSH) and closed ones. */
    static Channel channelOf(Connection connection) {
        if (connection == null || CONTEXT == null || connection.isClosed()
                || !NETTY_CONNECTION.equals(connection.getClass().getName())) {
            return null;
        }
        ChannelHandlerContext context = (ChannelHandlerContext) CONTEXT.get(connection);
        return context == null ? null : context.channel();
    }

    private static VarHandle contextHandle() {
        try {
            Class<?> c = Class.forName(NETTY_CONNECTION, false, LocalClientSession.class.getClassLoader());
            return MethodHandles.privateLookupIn(c, MethodHandles.lookup())
                    .findVarHandle(c, "channelHandlerContext", ChannelHandlerContext.class);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.info("MUC Scale: Openfire's connection channel is not reachable ({}); raw deliveries are written one "
                    + "by one through the connection", e.toString());
            return null;
        }
    }
}
