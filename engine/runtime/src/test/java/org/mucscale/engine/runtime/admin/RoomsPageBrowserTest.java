package org.mucscale.engine.runtime.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.muc.admin.RoomSettings;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.engine.runtime.MucScaleSettings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;

/**
 * The room pages in real headless Chromium, served by a running engine's HTTP server: search, page through 120 rooms,
 * open a room, kick an occupant with a reason and add several members at once, each through the page's own forms
 * (with its CSRF token), checked by the page and by what the occupant received; screenshots of the list and the room
 * are written and must be real images. Skipped only when Chromium is missing outside CI.
 */
class RoomsPageBrowserTest {
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private final List<String> sent = new CopyOnWriteArrayList<>();
    private MucScaleEngine engine;
    private ChromeDriver driver;
    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void roomsPage_searchPageKickAndAddMembers_inChromium() throws Exception {
        boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
        boolean present = new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute();
        assumeTrue(present || ci, "chromium or chromedriver missing (outside CI)");
        Settings settings = Settings.fromText(MucScaleSettings.catalog(), Map.of("mucscale.metrics.jmx-enabled",
                "false", "mucscale.metrics.http-port", "0", "mucscale.metrics.probe-enabled", "false",
                "mucscale.store.spill-directory", dir.resolve("spill").toString()));
        engine = MucScaleEngine.builder("muc.example.org", settings, new Delivery() {
            @Override
            public void deliver(RenderedStanza stanza, Jid recipient) {
                sent.add(stanza.forRecipient(recipient));
            }

            @Override
            public void send(XmlElement stanza) {
                sent.add(stanza.toXml());
            }
        }).serveHttp(true).build();
        engine.start();
        for (int i = 0; i < 120; i++) {
            RoomSettings s = new RoomSettings();
            s.owners = List.of("boss@example.org");
            s.naturalName = i == 77 ? "Grand Finals" : "Room " + i;
            engine.adminApi().rooms().create(String.format("room%03d", i), s, false);
        }
        engine.process(XmlElement.builder("presence").attribute("from", "ann@example.org/pc")
                .attribute("to", "room077@muc.example.org/ann")
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build());

        driver = chromium();
        String base = "http://127.0.0.1:" + engine.http().port() + "/mucscale-rooms.jsp";
        driver.get(base);
        assertThat(driver.getPageSource()).contains("120 room(s).", "room000", "room049").doesNotContain("room050<");
        loadsNewPage(() -> driver.findElement(By.id("next")).click());
        assertThat(driver.getPageSource()).contains("room050", "room099").doesNotContain(">room049<");
        loadsNewPage(() -> driver.findElement(By.id("next")).click());
        assertThat(driver.findElements(By.cssSelector("#rooms tbody tr"))).hasSize(20);
        shot("rooms-list");

        driver.get(base);
        driver.findElement(By.id("search")).sendKeys("grand");
        loadsNewPage(() -> driver.findElement(By.id("search")).submit());
        assertThat(driver.getPageSource()).contains("1 room(s) match.");
        loadsNewPage(() -> driver.findElement(By.linkText("room077")).click());
        assertThat(driver.findElement(By.id("occupants")).getText()).contains("ann@example.org/pc", "participant");

        var occupantForm = driver.findElement(By.cssSelector("form.occupant"));
        new Select(occupantForm.findElement(By.name("do"))).selectByVisibleText("kick");
        occupantForm.findElement(By.name("reason")).sendKeys("flooding");
        loadsNewPage(() -> occupantForm.findElement(By.tagName("button")).click());
        assertThat(driver.findElement(By.id("notice")).getText()).contains("Done: kick ann");
        for (int i = 0; i < 200 && sent.stream().noneMatch(x -> x.contains("code=\"307\"")); i++) {
            Thread.sleep(10);
        }
        assertThat(sent).anyMatch(x -> x.contains("code=\"307\"") && x.contains("flooding"));

        var members = driver.findElements(By.cssSelector("form.add-affiliation")).stream()
                .filter(f -> f.findElement(By.name("affiliation")).getAttribute("value").equals("member"))
                .findFirst().orElseThrow();
        members.findElement(By.name("jids")).sendKeys("a@example.org, b@example.org");
        loadsNewPage(() -> members.findElement(By.tagName("button")).click());
        assertThat(driver.findElement(By.id("notice")).getText()).contains("Added 2 member(s)");
        assertThat(driver.findElement(By.id("members")).getText()).contains("a@example.org", "b@example.org");
        shot("room");
        assertThat(engine.adminApi().audit().newest(5)).extracting(AuditTrail.Entry::who).contains("dashboard");
    }

    /**
     * Runs a click or submit that loads a new page and returns once that page has replaced the old one: read at once,
     * the old page's elements can still be found (a stale {@code #notice} from the previous action, seen in CI).
     */
    private void loadsNewPage(Runnable action) {
        org.openqa.selenium.WebElement old = driver.findElement(By.tagName("html"));
        action.run();
        new org.openqa.selenium.support.ui.WebDriverWait(driver, java.time.Duration.ofSeconds(20))
                .until(org.openqa.selenium.support.ui.ExpectedConditions.stalenessOf(old));
    }

    private void shot(String name) throws Exception {
        byte[] png = driver.getScreenshotAs(OutputType.BYTES);
        Path out = Path.of("target", "screenshots", "rooms-page-" + name + ".png");
        Files.createDirectories(out.getParent());
        Files.write(out, png);
        assertThat(png.length).as("a real screenshot").isGreaterThan(5_000);
        assertThat(png[1] == 'P' && png[2] == 'N' && png[3] == 'G').as("PNG").isTrue();
    }

    private ChromeDriver chromium() throws Exception {
        Path profile = Files.createTempDirectory(dir, "chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--window-size=1280,2000", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }
}
