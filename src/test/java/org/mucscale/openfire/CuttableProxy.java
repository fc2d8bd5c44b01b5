package org.mucscale.openfire;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay between a client and the server that can stop passing the server's bytes on (while both
 * connections stay open, so the server goes on writing and counting) and then cut every connection, as a phone
 * that loses its network does. A new connection (the client's resumption) is relayed normally again.
 *
 * <p>Concurrency: one accept thread and two pump threads per connection; {@code holding} is volatile.
 */
final class CuttableProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean holding;
    /** Everything the servers sent through this relay, as ISO-8859-1 text (tests read what went on the wire). */
    private final StringBuffer fromServers = new StringBuffer();

    CuttableProxy(int targetPort) throws IOException {
        this.target = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** What the servers have sent so far, on every relayed connection, in arrival order per connection. */
    String serverText() {
        return fromServers.toString();
    }

    /** From now on the server's bytes are read from it but not passed to the client. */
    void hold() {
        holding = true;
    }

    /** Closes every relayed connection; later connections are relayed normally. */
    void cut() {
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        open.clear();
        holding = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(client);
                open.add(upstream);
                pump(client, upstream, false);
                pump(upstream, client, true);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromServer) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (fromServer) {
                        fromServers.append(new String(buf, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1));
                    }
                    if (fromServer && holding) {
                        continue; // lost on the way, as on a dead network
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }, "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        cut();
        server.close();
    }
}
