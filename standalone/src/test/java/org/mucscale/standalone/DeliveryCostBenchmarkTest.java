package org.mucscale.standalone;

import static org.assertj.core.api.Assumptions.assumeThat;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.mina.core.buffer.IoBuffer;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * CPU and allocation per delivery on the standalone transport's calling side (what a room thread pays for each
 * recipient: splice the recipient into the rendered stanza as escaped UTF-8, one buffer, enqueue on MINA's write
 * queue), excluding the socket write itself, which MINA's I/O thread does. Baseline in the same run: the same
 * enqueue after building the whole stanza text per recipient ({@link RenderedStanza#forRecipient}) and encoding it.
 *
 * <p>Skipped unless {@code -Dmucscale.bench=true}; see docs/benchmarks/standalone.md for the command.
 */
class DeliveryCostBenchmarkTest {
    private static final int OCCUPANTS = 427;
    private static final int MESSAGES_PER_ROUND = 200;
    private static final int ROUNDS = 7;

    @Test
    void deliver_427Recipients_cpuAndAllocationPerDelivery() throws Exception {
        assumeThat(Boolean.getBoolean("mucscale.bench")).as("benchmark runs only with -Dmucscale.bench=true").isTrue();
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (FakeComponentServer xmpp = new FakeComponentServer("s")) {
            Map<String, String> text = new HashMap<>();
            text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(xmpp.port()));
            text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), "muc.example.test");
            text.put(StandaloneSettings.COMPONENT_SECRET.key(), "s");
            text.put(StandaloneSettings.WRITE_QUEUE_MAX_BYTES.key(), Long.toString(1L << 32));
            try (ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                    Settings.fromText(StandaloneSettings.ALL, text)))) {
                c.connect(s -> { });
                xmpp.awaitHandshakes(1, Duration.ofSeconds(10));
                Jid[] recipients = new Jid[OCCUPANTS];
                for (int i = 0; i < OCCUPANTS; i++) {
                    recipients[i] = Jid.parse("user" + i + "@example.test/res-" + i);
                }
                RenderedStanza stanza = RenderedStanza.render(XmlElement.builder("message")
                        .attribute("from", "big@muc.example.test/sender").attribute("type", "groupchat")
                        .attribute("id", "m-123456").textChild("body", "a typical chat line of about sixty characters..")
                        .child(XmlElement.builder("stanza-id", "urn:xmpp:sid:0").attribute("id", "1234567890abcdef")
                                .attribute("by", "big@muc.example.test").build())
                        .build());
                List<String> lines = new ArrayList<>();
                long[] spliceNs = new long[ROUNDS];
                long[] spliceBytes = new long[ROUNDS];
                long[] baseNs = new long[ROUNDS];
                long[] baseBytes = new long[ROUNDS];
                long tid = Thread.currentThread().getId();
                for (int warm = 0; warm < 10; warm++) {
                    round(c, stanza, recipients, false);
                    round(c, stanza, recipients, true);
                    drain(c);
                }
                for (int r = 0; r < ROUNDS; r++) {
                    long cpu0 = threads.getThreadCpuTime(tid);
                    long mem0 = threads.getThreadAllocatedBytes(tid);
                    round(c, stanza, recipients, false);
                    spliceNs[r] = threads.getThreadCpuTime(tid) - cpu0;
                    spliceBytes[r] = threads.getThreadAllocatedBytes(tid) - mem0;
                    drain(c);
                    cpu0 = threads.getThreadCpuTime(tid);
                    mem0 = threads.getThreadAllocatedBytes(tid);
                    round(c, stanza, recipients, true);
                    baseNs[r] = threads.getThreadCpuTime(tid) - cpu0;
                    baseBytes[r] = threads.getThreadAllocatedBytes(tid) - mem0;
                    drain(c);
                }
                double deliveries = (double) OCCUPANTS * MESSAGES_PER_ROUND;
                double splice = median(spliceNs) / deliveries;
                double base = median(baseNs) / deliveries;
                lines.add(String.format("deliveries per round: %d (%d recipients x %d messages), rounds: %d, "
                        + "stanza %d bytes", (long) deliveries, OCCUPANTS, MESSAGES_PER_ROUND, ROUNDS,
                        stanza.fixedUtf8Length() + 30));
                lines.add(String.format("splice (ComponentConnection.deliver): %.1f ns CPU, %.1f B allocated per delivery",
                        splice, median(spliceBytes) / deliveries));
                lines.add(String.format("baseline (forRecipient + getBytes + write): %.1f ns CPU, %.1f B allocated per "
                        + "delivery", base, median(baseBytes) / deliveries));
                lines.add(String.format("ratio baseline/splice CPU: %.2f", base / splice));
                lines.add("splice rounds ns: " + Arrays.toString(spliceNs));
                lines.add("baseline rounds ns: " + Arrays.toString(baseNs));
                Path out = Path.of(System.getProperty("mucscale.bench.dir",
                        "target" + System.getProperty("mucscale.build.suffix", "")), "standalone-delivery.txt");
                Files.createDirectories(out.toAbsolutePath().getParent());
                Files.write(out, lines, StandardCharsets.UTF_8);
                lines.forEach(System.out::println);
            }
        }
    }

    private static void round(ComponentConnection c, RenderedStanza stanza, Jid[] recipients, boolean baseline) {
        for (int m = 0; m < MESSAGES_PER_ROUND; m++) {
            for (Jid to : recipients) {
                if (baseline) {
                    c.writeForBenchmark(IoBuffer.wrap(stanza.forRecipient(to).getBytes(StandardCharsets.UTF_8)));
                } else {
                    c.deliver(stanza, to);
                }
            }
        }
    }

    /** Lets MINA's I/O thread write everything out between measured rounds. */
    private static void drain(ComponentConnection c) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (c.stats().queuedBytes() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private static double median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
