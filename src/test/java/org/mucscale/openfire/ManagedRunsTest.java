package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * The open batches of managed runs ({@link EventLoopWriteBatches.ManagedRuns}) with real Netty event loops (NIO) and
 * real sockets: runs of many sessions on one event loop join one batch while it waits in the loop's queue; a batch
 * the loop has started on, or one that is full, takes nothing more and the run goes on in a batch queued behind it;
 * and each session's stanzas keep the order in which they were numbered under the session's monitor, against a
 * second thread that numbers and writes for the same sessions the way Openfire does (under the monitor, through the
 * channel from outside its loop).
 */
class ManagedRunsTest {
    private static final Jid TO = Jid.parse("u@example.org/r");
    private static final Pattern NUMBER = Pattern.compile("<m n='(\\d+)' to='u@example.org/r'/>");
    private static final long WAIT_MS = 30_000;

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Reader> readers = new ArrayList<>();
    private final List<Channel> channels = new ArrayList<>();
    private final EventLoopWriteBatches batches = new EventLoopWriteBatches();

    @AfterEach
    void stop() throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** Reads a client socket and keeps the numbers of the stanzas it got, in arrival order. */
    private static final class Reader {
        final List<Integer> numbers = new ArrayList<>();
        private final StringBuilder pending = new StringBuilder();

        private final Thread thread;

        Reader(Socket socket) {
            thread = new Thread(() -> {
                byte[] buf = new byte[65536];
                try (InputStream in = socket.getInputStream()) {
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        take(new String(buf, 0, n, StandardCharsets.UTF_8));
                    }
                } catch (IOException e) {
                    // closed at the end of the test
                }
            }, "reader");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private synchronized void take(String text) {
            pending.append(text);
            Matcher m = NUMBER.matcher(pending);
            int end = 0;
            while (m.find()) {
                numbers.add(Integer.parseInt(m.group(1)));
                end = m.end();
            }
            pending.delete(0, end);
        }

        synchronized List<Integer> awaitCount(int count) throws InterruptedException {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (numbers.size() < count && System.currentTimeMillis() < deadline) {
                wait(10);
            }
            return new ArrayList<>(numbers);
        }
    }

    private void connect(int loops, int clients) throws Exception {
        connect(loops, clients, true, new io.netty.channel.WriteBufferWaterMark(32 * 1024, 64 * 1024), 0);
    }

    /** Clients on a Netty server with {@code loops} event loops; {@code sendBuffer} 0 leaves the kernel's. */
    private void connect(int loops, int clients, boolean read, io.netty.channel.WriteBufferWaterMark marks,
                         int sendBuffer) throws Exception {
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(loops, NioIoHandler.newFactory());
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        Channel server = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                .childOption(io.netty.channel.ChannelOption.WRITE_BUFFER_WATER_MARK, marks)
                .childHandler(new ChannelInitializer<NioSocketChannel>() {
                    @Override
                    protected void initChannel(NioSocketChannel ch) {
                        if (sendBuffer > 0) {
                            ch.config().setSendBufferSize(sendBuffer);
                        }
                        accepted.add(ch);
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        for (int i = 0; i < clients; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            sockets.add(s);
            if (!read) {
                s.setReceiveBufferSize(4096);
            }
            Reader r = new Reader(s);
            readers.add(r);
            if (read) {
                r.start();
            }
            Channel ch = accepted.poll(WAIT_MS, TimeUnit.MILLISECONDS);
            assertThat(ch).as("accepted connection " + i).isNotNull();
            channels.add(ch);
        }
    }

    private static RenderedStanza numbered(int n) {
        return RenderedStanza.of("<m n='" + n + "' to='", "'/>");
    }

    /** {@code got} is 0 to {@code count - 1} in order; otherwise says where it first differs, and what is around. */
    private static void assertInOrder(String who, List<Integer> got, int count) {
        for (int i = 0; i < Math.max(count, got.size()); i++) {
            if (i >= got.size() || i >= count || got.get(i) != i) {
                List<Integer> around = got.subList(Math.max(0, i - 3), Math.min(got.size(), i + 8));
                throw new AssertionError(who + ": " + got.size() + " of " + count + " stanzas; first wrong at " + i
                        + ", around it " + around);
            }
        }
    }

    /** Holds {@code loop} busy until the latch opens, so what is handed to it meanwhile waits in its queue. */
    private static CountDownLatch block(Channel onLoop) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        onLoop.eventLoop().execute(() -> {
            blocked.countDown();
            try {
                release.await(WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(blocked.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
        return release;
    }

    /**
     * Stands in for each session's stream manager: the identity of the newest stanza it numbered, as
     * {@code UnackedStanzas.newest} gives it, and the next number. Read and written under the session's monitor.
     */
    private static final class Numbering {
        final Object monitor = new Object();
        Object newest;
        int next;
    }

    /** A room thread's counted run of the next {@code n} numbers for one session (the caller holds its monitor). */
    private static void writeRun(EventLoopWriteBatches.ManagedRuns runs, Channel ch, Numbering numbering, int n) {
        RenderedStanza[] stanzas = new RenderedStanza[n];
        Jid[] recipients = new Jid[n];
        for (int i = 0; i < n; i++) {
            stanzas[i] = numbered(numbering.next++);
            recipients[i] = TO;
        }
        Object before = numbering.newest;
        numbering.newest = new Object();
        runs.write(ch, stanzas, recipients, 0, n, true, before, numbering.newest, null);
    }

    /** Openfire's own numbered write for a session, from outside its event loop (the caller holds its monitor). */
    private static void openfireWrite(Channel ch, Numbering numbering) {
        numbering.newest = new Object();
        byte[] bytes = ("<m n='" + numbering.next++ + "' to='" + TO + "'/>").getBytes(StandardCharsets.UTF_8);
        ch.writeAndFlush(Unpooled.wrappedBuffer(bytes));
    }

    private static Numbering[] numberings(int n) {
        Numbering[] all = new Numbering[n];
        for (int i = 0; i < n; i++) {
            all[i] = new Numbering();
        }
        return all;
    }

    @Test
    void runsOfSessionsWhoseNewestStanzaIsThisThreads_joinTheOneBatchWaitingInTheLoopsQueue() throws Exception {
        connect(1, 50);
        Numbering[] numbering = numberings(50);
        EventLoopWriteBatches.ManagedRuns runs = batches.new ManagedRuns();
        CountDownLatch release = block(channels.get(0));
        for (int s = 0; s < 50; s++) {
            writeRun(runs, channels.get(s), numbering[s], 3); // nothing this thread wrote before: a batch each
        }
        runs.end();
        assertThat(batches.batchCount()).isEqualTo(50);
        for (int s = 0; s < 50; s++) {
            writeRun(runs, channels.get(s), numbering[s], 3);
        }
        runs.end();
        assertThat(batches.batchCount()).as("150 more stanzas for 50 sessions on one loop: one task").isEqualTo(51);
        release.countDown();
        for (Reader r : readers) {
            assertThat(r.awaitCount(6)).containsExactly(0, 1, 2, 3, 4, 5);
        }
        assertThat(batches.writtenCount()).isEqualTo(300);
    }

    @Test
    void aSessionWithAWriteQueuedSinceTheBatch_startsABatchBehindIt_inOrder() throws Exception {
        connect(1, 2);
        Numbering[] numbering = numberings(2);
        EventLoopWriteBatches.ManagedRuns runs = batches.new ManagedRuns();
        Channel a = channels.get(0);
        Channel b = channels.get(1);
        CountDownLatch release = block(a);
        writeRun(runs, a, numbering[0], 1);
        writeRun(runs, b, numbering[1], 1);
        runs.end();
        writeRun(runs, a, numbering[0], 1); // a new batch, open to b's next run
        openfireWrite(b, numbering[1]); // queued behind that batch
        writeRun(runs, b, numbering[1], 1); // must not go into the batch before Openfire's write
        runs.end();
        assertThat(batches.batchCount()).isEqualTo(4);
        release.countDown();
        assertThat(readers.get(0).awaitCount(2)).containsExactly(0, 1);
        assertThat(readers.get(1).awaitCount(3)).containsExactly(0, 1, 2);
    }

    @Test
    void aBatchItsLoopHasStartedOn_takesNothingMore_theNextRunQueuesBehindIt() throws Exception {
        connect(1, 1);
        Numbering numbering = new Numbering();
        EventLoopWriteBatches.ManagedRuns runs = batches.new ManagedRuns();
        writeRun(runs, channels.get(0), numbering, 2);
        assertThat(readers.get(0).awaitCount(2)).containsExactly(0, 1);
        writeRun(runs, channels.get(0), numbering, 2); // may join, but the first batch has run
        runs.end();
        assertThat(readers.get(0).awaitCount(4)).containsExactly(0, 1, 2, 3);
        assertThat(batches.batchCount()).isEqualTo(2);
    }

    @Test
    void aFullBatchIsQueued_andTheRunGoesOnInTheNext_inOrder() throws Exception {
        connect(1, 1);
        EventLoopWriteBatches.ManagedRuns runs = batches.new ManagedRuns();
        CountDownLatch release = block(channels.get(0));
        int n = 2 * 256 + 10;
        writeRun(runs, channels.get(0), new Numbering(), n);
        runs.end();
        assertThat(batches.batchCount()).as("256 entries per open batch").isEqualTo(3);
        release.countDown();
        assertInOrder("the session", readers.get(0).awaitCount(n), n);
    }

    @Test
    void aNewHandOverStartsNewBatches() throws Exception {
        connect(1, 2);
        Numbering[] numbering = numberings(2);
        EventLoopWriteBatches.ManagedRuns runs = batches.new ManagedRuns();
        writeRun(runs, channels.get(0), numbering[0], 1);
        writeRun(runs, channels.get(1), numbering[1], 1);
        runs.end();
        assertThat(readers.get(1).awaitCount(1)).containsExactly(0);
        CountDownLatch release = block(channels.get(0));
        long before = batches.batchCount();
        writeRun(runs, channels.get(0), numbering[0], 1);
        runs.end();
        writeRun(runs, channels.get(1), numbering[1], 1);
        runs.end();
        assertThat(batches.batchCount() - before).as("a batch is forgotten at the end of its hand-over").isEqualTo(2);
        release.countDown();
        assertThat(readers.get(0).awaitCount(2)).containsExactly(0, 1);
        assertThat(readers.get(1).awaitCount(2)).containsExactly(0, 1);
    }

    /**
     * A client that does not read: counted stanzas go into its channel past the write-buffer mark, as Openfire's own
     * writes for it do, so that both arrive in the order counted once it reads. Held back behind the mark instead,
     * they were overtaken by Openfire's writes.
     */
    @Test
    void countedStanzasForAClientThatDoesNotRead_keepTheirOrderWithOpenfiresOwnWrites() throws Exception {
        connect(1, 1, false, new io.netty.channel.WriteBufferWaterMark(1024, 2048), 4096);
        Channel ch = channels.get(0);
        Numbering numbering = new Numbering();
        EventLoopWriteBatches.ManagedRuns runs = batches.new ManagedRuns();
        for (int round = 0; round < 200; round++) {
            synchronized (numbering.monitor) {
                writeRun(runs, ch, numbering, 5);
                runs.end();
                openfireWrite(ch, numbering);
            }
        }
        int total;
        synchronized (numbering.monitor) {
            total = numbering.next;
        }
        java.util.concurrent.CompletableFuture<Boolean> writable = new java.util.concurrent.CompletableFuture<>();
        ch.eventLoop().execute(() -> writable.complete(ch.isWritable()));
        assertThat(writable.get(WAIT_MS, TimeUnit.MILLISECONDS)).as("the client's channel is past its mark").isFalse();
        readers.get(0).start();
        assertInOrder("the client", readers.get(0).awaitCount(total), total);
        assertThat(batches.slowRemovedCount()).as("counted stanzas never make a recipient slow").isZero();
    }

    /**
     * A room thread's hand-overs and an Openfire thread's own writes for the same 20 sessions on two loops, both
     * numbering under the session's monitor: every session gets every number once, in order.
     */
    @Test
    void roomThreadAndOpenfireThreadNumberUnderTheMonitor_eachSessionGetsItsNumbersInOrder() throws Exception {
        int sessions = 20;
        connect(2, sessions);
        Numbering[] numbering = numberings(sessions);
        int handOvers = 300;
        int openfireWrites = 3000;
        Thread room = new Thread(() -> {
            EventLoopWriteBatches.ManagedRuns runs = batches.new ManagedRuns();
            for (int h = 0; h < handOvers; h++) {
                for (int s = 0; s < sessions; s++) {
                    synchronized (numbering[s].monitor) {
                        writeRun(runs, channels.get(s), numbering[s], 2);
                    }
                }
                runs.end();
            }
        }, "room");
        Thread openfire = new Thread(() -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < openfireWrites; i++) {
                int s = random.nextInt(sessions);
                synchronized (numbering[s].monitor) {
                    openfireWrite(channels.get(s), numbering[s]);
                }
            }
        }, "openfire");
        room.start();
        openfire.start();
        room.join(WAIT_MS);
        openfire.join(WAIT_MS);
        assertThat(room.isAlive() || openfire.isAlive()).isFalse();
        int total = 0;
        for (int s = 0; s < sessions; s++) {
            int expected;
            synchronized (numbering[s].monitor) {
                expected = numbering[s].next;
            }
            total += expected;
            assertInOrder("session " + s, readers.get(s).awaitCount(expected), expected);
        }
        assertThat(total).isEqualTo(handOvers * sessions * 2 + openfireWrites);
        assertThat(batches.batchCount()).as("runs joined batches").isLessThan(handOvers * sessions);
    }
}
