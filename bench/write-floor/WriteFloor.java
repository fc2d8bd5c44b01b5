import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one socket write costs on this machine, with no XMPP server around it: the floor under "server CPU per
 * delivery" for any server that writes each delivery to its recipient's TCP connection.
 *
 * <p>One writer thread sends {@code bytes}-byte messages round-robin to {@code connections} loopback connections,
 * one {@code write} per message (or {@code perWrite} messages per write, as a server that coalesces would); a reader
 * thread drains every connection through a selector. Reported: the writer thread's CPU time (user + system, which on
 * loopback includes the kernel's receive-side processing run in the sender's context) per message. Bounded: stops
 * after {@code messages} messages.
 *
 * <pre>java bench/write-floor/WriteFloor.java [connections=2000] [messages=2000000] [bytes=300] [perWrite=1]</pre>
 */
public final class WriteFloor {
    public static void main(String[] args) throws Exception {
        int connections = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        long messages = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000L;
        int bytes = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        int perWrite = args.length > 3 ? Integer.parseInt(args[3]) : 1;

        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress("127.0.0.1", 0), connections);
        SocketChannel[] clients = new SocketChannel[connections];
        SocketChannel[] accepted = new SocketChannel[connections];
        for (int i = 0; i < connections; i++) {
            clients[i] = SocketChannel.open(server.getLocalAddress());
            accepted[i] = server.accept();
            accepted[i].setOption(StandardSocketOptions.TCP_NODELAY, true);
        }
        Selector selector = Selector.open();
        for (SocketChannel c : clients) {
            c.configureBlocking(false);
            c.register(selector, SelectionKey.OP_READ);
        }
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong received = new AtomicLong();
        Thread reader = new Thread(() -> {
            ByteBuffer in = ByteBuffer.allocateDirect(1 << 16);
            try {
                while (!done.get()) {
                    if (selector.select(100) == 0) {
                        continue;
                    }
                    for (SelectionKey k : selector.selectedKeys()) {
                        in.clear();
                        received.addAndGet(((SocketChannel) k.channel()).read(in));
                    }
                    selector.selectedKeys().clear();
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "reader");
        reader.start();

        byte[] message = new byte[bytes * perWrite];
        java.util.Arrays.fill(message, (byte) 'x');
        ByteBuffer out = ByteBuffer.allocateDirect(message.length);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long writes = messages / perWrite;
        long warmup = Math.min(writes / 5, 200_000);
        long cpu0 = 0;
        long wall0 = 0;
        for (long w = 0; w < warmup + writes; w++) {
            if (w == warmup) {
                cpu0 = mx.getCurrentThreadCpuTime();
                wall0 = System.nanoTime();
            }
            out.clear();
            out.put(message).flip();
            SocketChannel ch = accepted[(int) (w % connections)];
            while (out.hasRemaining()) {
                ch.write(out);
            }
        }
        long cpuNs = mx.getCurrentThreadCpuTime() - cpu0;
        long wallNs = System.nanoTime() - wall0;
        long expected = (warmup + writes) * (long) message.length;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (received.get() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        done.set(true);
        reader.join();
        System.out.printf("connections=%d messages=%d bytes=%d perWrite=%d%n", connections, writes * perWrite, bytes,
                perWrite);
        System.out.printf("writer CPU per message: %.2f us (per write: %.2f us); wall per message %.2f us; "
                + "received %d of %d bytes%n", cpuNs / 1000.0 / (writes * perWrite), cpuNs / 1000.0 / writes,
                wallNs / 1000.0 / (writes * perWrite), received.get(), expected);
        for (SocketChannel c : clients) {
            c.close();
        }
        for (SocketChannel c : accepted) {
            c.close();
        }
        server.close();
    }
}
