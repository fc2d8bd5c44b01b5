package org.mucscale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on loopback, for the throwaway servers tests start.
 *
 * <p>Ports come from below the kernel's ephemeral range (Linux: {@code ip_local_port_range}, 32768-60999 by default),
 * never from it: a port the kernel hands out for {@code bind(0)} is also what it picks as the local port of outgoing
 * connections, so between choosing such a port and a server binding it, any connection (a cluster member dialling its
 * peers, a database client) could take it; that failed a cluster test with "address already in use". Below the range
 * only servers that name their port compete. Each port is handed out once per JVM, starting at a random place so
 * that concurrent JVMs rarely probe the same ones, and only after a bind on it succeeded.
 */
public final class FreePort {
    private static final int LOWEST = 10_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePort() {
    }

    public static int next() {
        int below = ephemeralLow();
        int span = below - LOWEST;
        int start = ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < span; i++) {
            int port = LOWEST + (start + i) % span;
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            } catch (IOException inUse) {
                continue;
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new UncheckedIOException(new IOException("no free loopback port between " + LOWEST + " and " + below));
    }

    /** The low end of the kernel's ephemeral port range (32768 when it cannot be read, Linux's default). */
    static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return low > LOWEST + 1_000 ? low : 32_768;
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }
}
