package org.mucscale.standalone;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.mucscale.engine.config.Settings;

/**
 * A standalone mucscale node in its own JVM for cluster tests: runs {@link StandaloneServer} from a properties file
 * and prints {@code connected}/{@code disconnected} and {@code members=N} whenever they change, so the test can follow
 * it from its output. Killed with SIGKILL by the test, or stopped with SIGTERM (graceful leave).
 */
public final class ClusterNodeProcess {
    private ClusterNodeProcess() {
    }

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        try (var in = Files.newInputStream(Path.of(args[0]))) {
            p.load(in);
        }
        Map<String, String> text = new HashMap<>();
        p.forEach((k, v) -> text.put(k.toString(), v.toString()));
        StandaloneServer server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(), text));
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        boolean connected = false;
        int members = -1;
        long lastStats = System.currentTimeMillis();
        while (true) {
            if (System.currentTimeMillis() - lastStats > 2000 && server.engine().metrics() != null) {
                lastStats = System.currentTimeMillis();
                var reg = server.engine().metrics().registry();
                var repl = reg.histogram("mucscale.cluster.replication.time.ns").getSnapshot();
                var relay = reg.histogram("mucscale.cluster.relay.latency.ns").getSnapshot();
                var lat = reg.histogram("mucscale.muc.handoff.latency.ns").getSnapshot();
                System.out.println("stats replication p50/p99 us " + (long) repl.getMedian() / 1000 + "/"
                        + (long) repl.get99thPercentile() / 1000 + ", relay p99 us " + (long) relay.get99thPercentile() / 1000
                        + ", delivery p99 us " + (long) lat.get99thPercentile() / 1000 + ", relays "
                        + reg.counter("mucscale.cluster.relays.sent").getCount() + ", forwards "
                        + reg.counter("mucscale.cluster.forwards").getCount() + ", gaps "
                        + reg.counter("mucscale.cluster.link.gaps").getCount() + ", queued "
                        + server.muc().queuedCommands());
            }
            boolean c = server.connection().isReady();
            if (c != connected) {
                connected = c;
                System.out.println((c ? "connected" : "disconnected") + " at " + System.currentTimeMillis());
            }
            int m = server.engine().cluster() == null ? 0 : server.engine().cluster().members().size();
            if (m != members) {
                members = m;
                System.out.println("members=" + m + " at " + System.currentTimeMillis());
            }
            Thread.sleep(50);
        }
    }
}
