package org.mucscale.engine.metrics;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Clock;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Opens the dashboard in real headless Chromium, served by {@link MetricsHttpServer}, while a background thread records
 * synthetic traffic (including a room named {@code <script>alert(1)</script>}). Skipped only when Chromium is missing
 * outside CI; with CI=true it always runs.
 */
class DashboardBrowserTest {

    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final String EVIL_ROOM = "<script>alert(1)</script>";
    private static final String EVIL_NODE = "<img src=x onerror=alert(2)>";

    private MucScaleMetrics metrics;
    private MetricsHttpServer server;
    private ChromeDriver driver;
    private Path profile;
    private final AtomicBoolean trafficRunning = new AtomicBoolean(true);
    private Thread traffic;

    @AfterEach
    void stop() throws Exception {
        trafficRunning.set(false);
        if (traffic != null) {
            traffic.join(5_000);
        }
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void dashboard_underTraffic_rendersChartsWithDataAndNoConsoleErrors() throws Exception {
        requireChromium();
        AtomicInteger probes = new AtomicInteger();
        startServerWithTraffic(null, probes);
        System.gc(); // a pause to overlay on the latency chart
        for (int i = 0; i < 3; i++) {
            Thread.sleep(250);
            metrics.dashboard().sampleNow();
        }

        JavascriptExecutor js = openDashboard();
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60));

        long canvases = (Long) js.executeScript("return document.querySelectorAll('#mucscale-dashboard canvas').length");
        long latencyPoints = (Long) js.executeScript(
                "return window.mucscaleDashboard.charts.latency.data[0].length");
        long latencyValues = (Long) js.executeScript(
                "var d = window.mucscaleDashboard.charts.latency.data;"
                        + "return d[2].filter(function (v) { return v !== null; }).length;");
        long throughputValues = (Long) js.executeScript(
                "return window.mucscaleDashboard.charts.throughput.data[1]"
                        + ".filter(function (v) { return v !== null && v > 0; }).length;");
        assertThat(canvases).isGreaterThanOrEqualTo(5);
        assertThat(latencyPoints).isGreaterThan(0);
        assertThat(latencyValues).isGreaterThan(0);
        assertThat(throughputValues).isGreaterThan(0);
        long gcPoints = (Long) js.executeScript(
                "var d = window.mucscaleDashboard.charts.latency.data;"
                        + "return d[6].filter(function (v) { return v !== null; }).length;");
        assertThat(gcPoints).as("GC pause overlaid on the latency chart").isGreaterThan(0);

        assertThat(driver.findElement(By.id("ms-sum-occupants")).getText()).isEqualTo("57");

        // Not clustered: no Cluster panel and no cluster chart.
        assertThat(driver.findElement(By.id("ms-cluster")).isDisplayed()).isFalse();
        assertThat((Boolean) js.executeScript("return 'cluster' in window.mucscaleDashboard.charts")).isFalse();

        // Heap pools before/after the last collection are listed.
        assertThat(cellTexts(js, "#ms-heap-pools td")).hasSizeGreaterThanOrEqualTo(3).doesNotContain("none yet");

        // Next to the pause chart: this JVM's version, collector, heap and the flag checker's verdict on its options.
        assertThat(driver.findElement(By.id("ms-jvm-version")).getText())
                .startsWith(Integer.toString(Runtime.version().feature()));
        assertThat(driver.findElement(By.id("ms-jvm-collector")).getText()).isEqualTo(JvmFacts.facts().collector());
        assertThat(driver.findElement(By.id("ms-jvm-heap")).getText()).matches("[0-9.]+ MiB / [0-9.]+ MiB");
        int expectedExit = org.mucscale.engine.metrics.jvm.JvmFlagCheck.check(JvmFacts.facts().options(),
                Runtime.version().feature(), 57, JvmFacts.facts().host(),
                java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax()).exitCode();
        assertThat(driver.findElement(By.id("ms-jvm-verdict")).getText())
                .isEqualTo(expectedExit == 0 ? "clean" : expectedExit == 1 ? "warnings" : "would not start");
        assertThat(driver.findElement(By.id("ms-jvm-options")).getText()).isNotEqualTo("–");
        assertThat(cellTexts(js, "#ms-jvm-findings td")).isNotEmpty().doesNotContain("none yet");

        // The hostile room name is shown as text and nothing ran.
        assertThat(cellTexts(js, "#ms-top-rooms td")).contains(EVIL_ROOM);
        assertThatThrownBy(() -> driver.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
        assertThat((Long) js.executeScript("return document.querySelectorAll('#mucscale-dashboard script').length"))
                .isZero();

        // Refreshes in place: a second render without reloading the page.
        js.executeScript("window.__mucscaleMarker = 1;");
        long renders = (Long) js.executeScript("return window.mucscaleDashboard.renders");
        try {
            wait.until(d -> (Long) js.executeScript("return window.mucscaleDashboard.renders") > renders);
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("no second render; page errors: "
                    + js.executeScript("return JSON.stringify(window.mucscaleDashboard.errors)") + ", status: "
                    + driver.findElement(By.id("ms-status")).getText() + ", console: "
                    + driver.manage().logs().get(LogType.BROWSER).getAll(), e);
        }
        assertThat((Long) js.executeScript("return window.__mucscaleMarker")).isEqualTo(1L);

        // The one action is a POST with the page's CSRF token.
        driver.findElement(By.id("ms-probe-now")).click();
        wait.until(d -> d.findElement(By.id("ms-status")).getText().contains("probe sent"));
        assertThat(probes.get()).isEqualTo(1);

        // The one-hour view.
        driver.findElement(By.cssSelector("[data-range='3600']")).click();
        wait.until(d -> (Long) js.executeScript("return window.mucscaleDashboard.lastData.rangeSeconds") == 3600L);

        Path artifacts = Path.of(System.getProperty("mucscale.test.artifacts", "target/test-artifacts"));
        Files.createDirectories(artifacts);
        Path shot = artifacts.resolve("dashboard.png");
        Files.write(shot, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        assertThat(Files.size(shot)).isGreaterThan(10_000);

        List<LogEntry> severe = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
                .toList();
        assertThat(severe).as("browser console errors").isEmpty();
        assertThat((Long) js.executeScript("return window.mucscaleDashboard.errors.length")).isZero();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void dashboard_onClusterNode_showsClusterPanelUntilTheViewGoes() throws Exception {
        requireChromium();
        AtomicInteger ownedHere = new AtomicInteger(41);
        startServerWithTraffic(ownedHere, new AtomicInteger());
        for (int i = 0; i < 3; i++) {
            Thread.sleep(250);
            metrics.dashboard().sampleNow();
        }

        JavascriptExecutor js = openDashboard();
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60));

        assertThat(driver.findElement(By.id("ms-cluster")).isDisplayed()).isTrue();
        assertThat(driver.findElement(By.id("ms-cl-local")).getText())
                .isEqualTo("(this node: node-b.example, 3 members)");
        // Members by name with the rooms each owns and the build each runs (unknown: a dash); this node's row marked;
        // a hostile name stays text.
        assertThat(cellTexts(js, "#ms-cl-nodes td")).containsExactly(
                EVIL_NODE, "17", "–", "node-a.example", "23", "0.2.0 (wire version 2)",
                "node-b.example (this node)", "41", "0.1.0 (wire version 1)");
        assertThat(cellTexts(js, "#ms-cl-nodes tr.ms-cl-this td"))
                .containsExactly("node-b.example (this node)", "41", "0.1.0 (wire version 1)");
        assertThatThrownBy(() -> driver.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
        // This node's figures are filled in from the traffic.
        for (String id : List.of("ms-cl-sent", "ms-cl-deliveries", "ms-cl-received", "ms-cl-forwards", "ms-cl-repl",
                "ms-cl-latency", "ms-cl-repl-time")) {
            assertThat(driver.findElement(By.id(id)).getText()).as(id).isNotEqualTo("–");
        }
        assertThat(driver.findElement(By.id("ms-cl-bytes")).getText()).endsWith("iB/s");
        assertThat(driver.findElement(By.id("ms-cl-latency")).getText()).matches("[0-9.]+ / [0-9.]+ / [0-9.]+");
        assertThat(driver.findElement(By.id("ms-cl-failovers")).getText()).isEqualTo("6");
        assertThat(driver.findElement(By.id("ms-cl-last-failover")).getText()).isEqualTo("412 ms");
        assertThat(driver.findElement(By.id("ms-cl-state-reads")).getText()).isEqualTo("1 (0)");
        long relayPoints = (Long) js.executeScript("return window.mucscaleDashboard.charts.cluster.data[1]"
                + ".filter(function (v) { return v !== null && v > 0; }).length;");
        assertThat(relayPoints).as("relays/s on the cluster chart").isGreaterThan(0);

        // The view follows the cluster: a changed room count shows on the next refresh.
        ownedHere.set(44);
        wait.until(d -> cellTexts(js, "#ms-cl-nodes tr.ms-cl-this td").contains("44"));

        Path artifacts = Path.of(System.getProperty("mucscale.test.artifacts", "target/test-artifacts"));
        Files.createDirectories(artifacts);
        Path shot = artifacts.resolve("dashboard-cluster.png");
        org.openqa.selenium.WebElement panel = driver.findElement(By.id("ms-cluster"));
        js.executeScript("arguments[0].scrollIntoView(true);", panel);
        Files.write(shot, panel.getScreenshotAs(OutputType.BYTES));
        assertThat(Files.size(shot)).isGreaterThan(5_000);
        js.executeScript("window.scrollTo(0, 0);");
        Files.write(artifacts.resolve("dashboard-cluster-page.png"), driver.getScreenshotAs(OutputType.BYTES));

        // Left the cluster (no view any more): the panel goes away on the next refresh.
        metrics.clusterView(null);
        wait.until(d -> !d.findElement(By.id("ms-cluster")).isDisplayed());
        assertThat((Boolean) js.executeScript("return 'cluster' in window.mucscaleDashboard.charts")).isFalse();

        List<LogEntry> severe = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
                .toList();
        assertThat(severe).as("browser console errors").isEmpty();
        assertThat((Long) js.executeScript("return window.mucscaleDashboard.errors.length")).isZero();
    }

    private static void requireChromium() {
        boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
        boolean present = new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute();
        assumeTrue(present || ci, "chromium or chromedriver missing (outside CI)");
        assertThat(present).as("CI must have " + CHROMIUM + " and " + CHROMEDRIVER).isTrue();
    }

    /**
     * Metrics sampling every second, served by a {@link MetricsHttpServer} on a free port, with synthetic traffic
     * running. With {@code roomsHere} (null: not clustered) this is node-b of a three-node cluster owning that many
     * rooms, and the traffic includes relays, forwards and replication writes.
     */
    private void startServerWithTraffic(AtomicInteger roomsHere, AtomicInteger probes) throws Exception {
        MetricsConfig config = MetricsConfig.from(Settings.fromText(MetricsSettings.ALL, Map.of(
                "mucscale.metrics.http-port", "0",
                "mucscale.metrics.sample-interval", "1s")));
        metrics = new MucScaleMetrics(config, Clock.SYSTEM);
        metrics.start();
        metrics.gaugeRooms(() -> 3);
        metrics.gaugeOccupants(() -> 57);
        boolean cluster = roomsHere != null;
        if (cluster) {
            metrics.clusterView(() -> {
                Map<String, Integer> rooms = new java.util.HashMap<>();
                rooms.put("node-a.example", 23);
                rooms.put("node-b.example", roomsHere.get());
                rooms.put(EVIL_NODE, 17);
                return new MucScaleMetrics.ClusterView("node-b.example", rooms, 6, 412,
                        Map.of("node-a.example", "0.2.0 (wire version 2)", "node-b.example", "0.1.0 (wire version 1)"));
            });
        }
        AtomicInteger storeQueue = new AtomicInteger();
        metrics.gaugeQueueDepth("store", storeQueue::get);
        server = new MetricsHttpServer(metrics, config);
        server.onAction("probe", probes::incrementAndGet);
        server.start();

        traffic = new Thread(() -> syntheticTraffic(storeQueue, cluster), "test-synthetic-traffic");
        traffic.setDaemon(true);
        traffic.start();
        Thread.sleep(300);
    }

    private JavascriptExecutor openDashboard() throws Exception {
        driver = startChromium();
        driver.get("http://127.0.0.1:" + server.port() + "/");
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60));
        wait.until(d -> "ok".equals(d.findElement(By.id("mucscale-dashboard")).getAttribute("data-state")));
        return driver;
    }

    /**
     * The text of every cell matching {@code selector}, read in one script: the page rebuilds its tables on each
     * refresh, so element references found one call earlier may already be gone.
     */
    @SuppressWarnings("unchecked")
    private static List<String> cellTexts(JavascriptExecutor js, String selector) {
        return (List<String>) js.executeScript("return Array.prototype.map.call(document.querySelectorAll(arguments[0]),"
                + " function (td) { return td.textContent; });", selector);
    }

    private void syntheticTraffic(AtomicInteger storeQueue, boolean cluster) {
        String[] rooms = {"lobby@conference.example", "support@conference.example", EVIL_ROOM};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
        long i = 0;
        while (trafficRunning.get() && System.nanoTime() < deadline) {
            String room = rooms[(int) (i % 7 == 0 ? 2 : i % 2)];
            long latencyNs = 200_000 + (i % 100) * 20_000 + (i % 500 == 0 ? 30_000_000 : 0);
            metrics.recordMessage(room, 5 + (int) (i % 20), latencyNs);
            metrics.recordStoreCommitLatencyNs(1_000_000 + (i % 50) * 100_000);
            if (i % 10 == 0) {
                metrics.recordFilterNs(3_000 + i % 1000);
                metrics.filterAction(room, "profanity", i % 20 == 0 ? "reject" : "mask");
                metrics.storeCommitted(10, 2_000_000);
            }
            if (i % 50 == 0) {
                metrics.recordProbeLatencyNs(1_500_000 + (i % 7) * 100_000);
            }
            if (cluster) {
                metrics.clusterRelaySent(3 + (int) (i % 5), 600 + (int) (i % 400));
                if (i == 0) {
                    metrics.clusterStateReadFailed();
                }
                if (i % 2 == 0) {
                    metrics.clusterRelayReceived(300_000 + (i % 40) * 25_000);
                }
                if (i % 5 == 0) {
                    metrics.clusterForwarded();
                }
                if (i % 4 == 0) {
                    metrics.clusterReplicated(150_000 + (i % 30) * 10_000, i % 400 == 0);
                }
            }
            storeQueue.set((int) (i % 300));
            i++;
            try {
                Thread.sleep(0, 200_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private ChromeDriver startChromium() throws Exception {
        profile = Files.createTempDirectory("mucscale-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--window-size=1280,2000", "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }
}
