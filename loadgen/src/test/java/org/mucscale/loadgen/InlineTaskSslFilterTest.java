package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.core.write.WriteRequest;
import org.apache.mina.filter.FilterEvent;
import org.apache.mina.filter.ssl.SslEvent;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;
import org.apache.mina.transport.socket.nio.NioSocketConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.testkit.FreePort;

/**
 * The cause of issue 39's flaky {@link StartTlsTest}: with MINA's own {@code SslFilter}, a handshake's records are
 * handed to the session from MINA's delegated-task executor while the I/O thread already fires {@code SECURED} and
 * writes application data, so the first application record can overtake the client's Finished. Here six clients
 * handshake at once over loopback; a filter between the session and the TLS filter records which thread hands each
 * encrypted record to the session. With {@link InlineTaskSslFilter} every record comes from the session's I/O
 * thread, so records leave in the order the engine made them, and every client's first write is echoed back.
 */
class InlineTaskSslFilterTest {

    @Test
    @Timeout(60)
    void handshakes_sixAtOnce_everyRecordLeavesFromTheIoThreadAndEveryEchoArrives(@TempDir Path dir) throws Exception {
        int clients = 6;
        NioSocketAcceptor acceptor = new NioSocketAcceptor(1);
        NioSocketConnector connector = new NioSocketConnector(1);
        Set<String> recordThreads = ConcurrentHashMap.newKeySet();
        CountDownLatch echoed = new CountDownLatch(clients);
        List<String> echoes = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            acceptor.getFilterChain().addLast("tls", new InlineTaskSslFilter(StartTlsTest.selfSignedContext(dir)));
            acceptor.setHandler(new IoHandlerAdapter() {
                @Override
                public void messageReceived(IoSession session, Object message) {
                    IoBuffer in = (IoBuffer) message;
                    session.write(IoBuffer.allocate(in.remaining()).put(in).flip());
                }
            });
            int port = FreePort.next();
            acceptor.bind(new InetSocketAddress("127.0.0.1", port));

            connector.getFilterChain().addLast("records", new IoFilterAdapter() {
                @Override
                public void filterWrite(NextFilter next, IoSession session, WriteRequest request) throws Exception {
                    recordThreads.add(Thread.currentThread().getName().replaceAll("-\\d+$", ""));
                    next.filterWrite(session, request);
                }
            });
            connector.getFilterChain().addLast("tls", new InlineTaskSslFilter(TrustAllTls.trustAllContext()));
            connector.setHandler(new IoHandlerAdapter() {
                @Override
                public void event(IoSession session, FilterEvent event) {
                    if (event == SslEvent.SECURED) {
                        // what the generator does on SECURED: write at once (its new stream header)
                        session.write(IoBuffer.wrap(("hello " + session.getId()).getBytes(StandardCharsets.UTF_8)));
                    }
                }

                @Override
                public void messageReceived(IoSession session, Object message) {
                    IoBuffer in = (IoBuffer) message;
                    byte[] b = new byte[in.remaining()];
                    in.get(b);
                    echoes.add(new String(b, StandardCharsets.UTF_8));
                    echoed.countDown();
                }
            });
            for (int i = 0; i < clients; i++) {
                connector.connect(new InetSocketAddress("127.0.0.1", port));
            }

            assertThat(echoed.await(45, TimeUnit.SECONDS)).as("every client's first write echoed; got " + echoes).isTrue();
            assertThat(echoes).allSatisfy(e -> assertThat(e).startsWith("hello "));
            assertThat(recordThreads).as("threads that handed TLS records to the sessions").containsOnly("NioProcessor");
        } finally {
            connector.dispose(false);
            acceptor.dispose(false);
        }
    }
}
