package org.mucscale.standalone;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.engine.cluster.ClusterTransport;
import org.mucscale.engine.config.Settings;

/**
 * A cluster member in a JVM of its own, for {@link HazelcastClusterKillTest}: {@code java -cp <test classpath>
 * org.mucscale.standalone.ClusterMemberProcess <members> <entries> key=value...}. Starts a
 * {@link HazelcastClusterTransport} from the settings given, prints {@code NODE <id>}, waits until its view has
 * {@code <members>} nodes, writes {@code <entries>} entries ({@code key<i>} = {@code value<i>}) into the map
 * {@code kill}, prints {@code WROTE <entries>} and then runs until killed, or until its standard input closes (so a
 * test JVM that dies leaves no member behind).
 */
public final class ClusterMemberProcess {
    private ClusterMemberProcess() {
    }

    public static void main(String[] args) throws Exception {
        int expected = Integer.parseInt(args[0]);
        int entries = Integer.parseInt(args[1]);
        Map<String, String> text = new HashMap<>();
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            text.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        HazelcastClusterTransport transport = HazelcastClusterTransport.create(
                Settings.fromText(StandaloneSettings.ALL, text));
        CountDownLatch complete = new CountDownLatch(1);
        transport.start(new ClusterTransport.Listener() {
            @Override
            public void received(String fromNode, byte[] message) {
            }

            @Override
            public void membersChanged(List<String> members) {
                if (members.size() >= expected) {
                    complete.countDown();
                }
            }
        });
        System.out.println("NODE " + transport.localNode());
        System.out.flush();
        complete.await();
        ClusterMap map = transport.map("kill");
        Map<String, byte[]> values = new HashMap<>();
        for (int i = 0; i < entries; i++) {
            values.put("key" + i, ("value" + i).getBytes(StandardCharsets.UTF_8));
        }
        map.putAll(values);
        System.out.println("WROTE " + entries);
        System.out.flush();
        while (System.in.read() >= 0) {
            // runs until the parent goes away
        }
        transport.stop();
    }
}
