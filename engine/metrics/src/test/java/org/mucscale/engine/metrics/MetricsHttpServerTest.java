package org.mucscale.engine.metrics;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Clock;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class MetricsHttpServerTest {

    private static final String TOKEN = "s3cret-token-0123456789";
    private final HttpClient http = HttpClient.newHttpClient();
    private MucScaleMetrics metrics;
    private MetricsHttpServer server;

    private MetricsHttpServer start(Map<String, String> settings) throws Exception {
        Map<String, String> all = new HashMap<>(settings);
        all.put("mucscale.metrics.http-port", "0");
        MetricsConfig config = MetricsConfig.from(Settings.fromText(MetricsSettings.ALL, all));
        metrics = new MucScaleMetrics(config, Clock.SYSTEM);
        metrics.start();
        server = new MetricsHttpServer(metrics, config);
        server.start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String form, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Content-Type", "application/x-www-form-urlencoded");
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void dashboard_fromLoopback_servesPageStaticFilesAndJson() throws Exception {
        start(Map.of());
        metrics.recordMessage("<script>alert(1)</script>", 4, 2_000_000);
        metrics.dashboard().sampleNow();

        HttpResponse<String> page = get("/");
        HttpResponse<String> js = get("/dashboard/dashboard.js");
        HttpResponse<String> uplot = get("/dashboard/vendor/uPlot.iife.min.js");
        HttpResponse<String> json = get("/mucscale-dashboard-data?range=900");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<meta name=\"pageID\" content=\"mucscale-dashboard\"/>")
                .contains("value=\"" + server.csrfToken() + "\"")
                .contains("data-url=\"mucscale-dashboard-data\"");
        assertThat(page.headers().firstValue("Content-Security-Policy")).get().asString().contains("script-src 'self'");
        assertThat(js.statusCode()).isEqualTo(200);
        assertThat(js.headers().firstValue("Content-Type")).contains("text/javascript; charset=utf-8");
        assertThat(uplot.statusCode()).isEqualTo(200);
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.body()).startsWith("{\"nowMs\":")
                .contains("\"room\":\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\"")
                .doesNotContain("<script>");
    }

    @Test
    void close_freesPortAndThreads() throws Exception {
        start(Map.of());
        int port = server.port();
        assertThat(get("/").statusCode()).isEqualTo(200);

        server.close();

        try (java.net.ServerSocket again = new java.net.ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (httpThreadAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(httpThreadAlive()).isFalse();
        server = null;
    }

    private static boolean httpThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith("mucscale-metrics-http-") && t.isAlive());
    }

    @Test
    void staticFile_withTraversal_isNotFound() throws Exception {
        start(Map.of());
        assertThat(get("/dashboard/../../../etc/passwd").statusCode()).isEqualTo(404);
        assertThat(get("/dashboard/%2e%2e/%2e%2e/pom.xml").statusCode()).isEqualTo(404);
        assertThat(get("/dashboard/page.html").statusCode()).isEqualTo(404);
    }

    @Test
    void request_fromUnlistedAddress_isRefused() throws Exception {
        start(Map.of("mucscale.metrics.http-allowed-addresses", "10.9.9.9",
                "mucscale.metrics.prometheus-enabled", "true"));
        assertThat(get("/").statusCode()).isEqualTo(403);
        assertThat(get("/mucscale-dashboard-data").statusCode()).isEqualTo(403);
        assertThat(get("/metrics").statusCode()).isEqualTo(403);
    }

    @Test
    void request_withoutToken_isRefusedAndWithTokenAllowed() throws Exception {
        start(Map.of("mucscale.metrics.http-token", TOKEN));
        String basic = "Basic " + Base64.getEncoder().encodeToString(("admin:" + TOKEN).getBytes(StandardCharsets.UTF_8));
        String wrong = "Basic " + Base64.getEncoder().encodeToString("admin:nope".getBytes(StandardCharsets.UTF_8));

        HttpResponse<String> anonymous = get("/mucscale-dashboard-data");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).get().asString().startsWith("Basic");
        assertThat(get("/mucscale-dashboard-data", "Authorization", wrong).statusCode()).isEqualTo(401);
        assertThat(get("/mucscale-dashboard-data", "Authorization", basic).statusCode()).isEqualTo(200);
        assertThat(get("/", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void prometheus_byDefault_isDisabled() throws Exception {
        start(Map.of());
        assertThat(get("/metrics").statusCode()).isEqualTo(404);
    }

    @Test
    void updateSettings_enablingPrometheus_takesEffectWithoutRestart() throws Exception {
        start(Map.of());
        assertThat(get("/metrics").statusCode()).isEqualTo(404);
        server.updateSettings(MetricsConfig.from(Settings.fromText(MetricsSettings.ALL,
                Map.of("mucscale.metrics.prometheus-enabled", "true"))));
        assertThat(get("/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void prometheus_withFailingGaugeSupplier_stillScrapes() throws Exception {
        start(Map.of("mucscale.metrics.prometheus-enabled", "true"));
        metrics.gaugeQueueDepth("broken", () -> {
            throw new IllegalStateException("owner stopped");
        });
        metrics.dashboard().sampleNow();
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(parsePrometheus(r.body())).containsKey("mucscale_muc_messages")
                .doesNotContainKey("mucscale_queue_depth{queue=\"broken\"}");
        assertThat(get("/mucscale-dashboard-data").body()).contains("\"broken\":[");
    }

    @Test
    void prometheus_withTokenFromUnlistedAddress_allowsOnlyTheToken() throws Exception {
        start(Map.of("mucscale.metrics.http-allowed-addresses", "10.9.9.9",
                "mucscale.metrics.prometheus-enabled", "true",
                "mucscale.metrics.prometheus-token", TOKEN));
        assertThat(get("/metrics", "Authorization", "Bearer wrong-token-0123456789").statusCode()).isEqualTo(403);
        assertThat(get("/metrics", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        // the Prometheus token opens /metrics only, not the dashboard
        assertThat(get("/mucscale-dashboard-data", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(403);
    }

    @Test
    void prometheus_output_parsesAndHasTheMetrics() throws Exception {
        start(Map.of("mucscale.metrics.prometheus-enabled", "true"));
        metrics.recordMessage("room@conference.example", 5, 3_000_000);
        metrics.filterAction("room@conference.example", "profanity", "mask");
        metrics.storeCommitted(10, 4_000_000);
        metrics.gaugeQueueDepth("store", () -> 42);

        HttpResponse<String> r = get("/metrics");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).get().asString().startsWith("text/plain; version=0.0.4");
        Map<String, Double> samples = parsePrometheus(r.body());
        assertThat(samples).containsKey("mucscale_muc_handoff_latency_ns{quantile=\"0.999\"}");
        assertThat(samples.get("mucscale_muc_handoff_latency_ns_count")).isEqualTo(1.0);
        assertThat(samples.get("mucscale_muc_messages")).isEqualTo(1.0);
        assertThat(samples.get("mucscale_filter_actions{list=\"profanity\",action=\"mask\"}")).isEqualTo(1.0);
        assertThat(samples.get("mucscale_queue_depth{queue=\"store\"}")).isEqualTo(42.0);
        assertThat(samples.get("mucscale_store_batch_size_count")).isEqualTo(1.0);
        assertThat(samples).containsKeys("mucscale_jvm_gc_pause_ns_count", "mucscale_jvm_threads",
                "mucscale_muc_messages_per_second", "mucscale_jvm_heap_used_bytes");
    }

    /** A strict reader of text format 0.0.4: every line is a comment, blank, or "name{labels} value". */
    private static Map<String, Double> parsePrometheus(String body) {
        Pattern sample = Pattern.compile(
                "([a-zA-Z_:][a-zA-Z0-9_:]*(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\"(,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\")*,?\\})?) (\\S+)");
        Pattern comment = Pattern.compile("# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*");
        Map<String, Double> out = new HashMap<>();
        for (String line : body.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                assertThat(comment.matcher(line).matches()).as("comment line: " + line).isTrue();
                continue;
            }
            var m = sample.matcher(line);
            assertThat(m.matches()).as("sample line: " + line).isTrue();
            // The format allows a trailing comma in the label set; simpleclient writes one.
            out.put(m.group(1).replace(",}", "}"), Double.parseDouble(m.group(m.groupCount())));
        }
        return out;
    }

    @Test
    void request_crossSite_isRefused() throws Exception {
        start(Map.of());
        assertThat(get("/mucscale-dashboard-data", "Origin", "http://evil.example").statusCode()).isEqualTo(403);
        assertThat(get("/mucscale-dashboard-data", "Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
        assertThat(post("/mucscale-dashboard-data", "action=probe&csrf=" + server.csrfToken(),
                "Origin", "http://evil.example").statusCode()).isEqualTo(403);
        assertThat(get("/mucscale-dashboard-data", "Origin", "http://127.0.0.1:" + server.port()).statusCode())
                .isEqualTo(200);
    }

    @Test
    void request_withForeignHostName_isRefused() throws Exception {
        start(Map.of());
        assertThat(rawStatus("evil.example")).isEqualTo(403); // DNS rebinding: evil.example resolved to 127.0.0.1
        assertThat(rawStatus("127.0.0.1:" + server.port())).isEqualTo(200);
        assertThat(rawStatus("localhost:" + server.port())).isEqualTo(200);
    }

    /** A GET of the data with a chosen Host header (java.net.http will not send a foreign one). */
    private int rawStatus(String host) throws Exception {
        try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /mucscale-dashboard-data HTTP/1.1\r\nHost: " + host
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII)).readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    @Test
    void action_needsCsrfToken() throws Exception {
        start(Map.of());
        AtomicInteger probes = new AtomicInteger();
        server.onAction("probe", probes::incrementAndGet);

        assertThat(post("/mucscale-dashboard-data", "action=probe").statusCode()).isEqualTo(403);
        assertThat(post("/mucscale-dashboard-data", "action=probe&csrf=0000").statusCode()).isEqualTo(403);
        assertThat(post("/mucscale-dashboard-data", "action=nothing&csrf=" + server.csrfToken()).statusCode())
                .isEqualTo(400);
        assertThat(probes.get()).isZero();
        assertThat(post("/mucscale-dashboard-data", "action=probe&csrf=" + server.csrfToken()).statusCode())
                .isEqualTo(200);
        assertThat(probes.get()).isEqualTo(1);
    }

    @Test
    void jmx_whenEnabled_exposesHistogramsInOurDomain() throws Exception {
        start(Map.of());
        metrics.recordDeliveryLatencyNs(7_000_000);
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = mbeans.queryNames(new ObjectName("org.mucscale:name=mucscale.muc.handoff.latency.ns,*"), null);
        assertThat(names).hasSize(1);
        Object max = mbeans.getAttribute(names.iterator().next(), "Max");
        assertThat(((Number) max).longValue()).isBetween(6_990_000L, 7_010_000L);
    }

    @Test
    void page_csrfValue_isAttributeEscaped() {
        assertThat(DashboardPage.html("\"><script>x</script>", "data?a=1&b=2"))
                .contains("value=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;\"")
                .contains("data-url=\"data?a=1&amp;b=2\"");
    }
}
