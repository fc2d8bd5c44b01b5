package org.mucscale.engine.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mucscale.engine.runtime.EngineFixture.SERVICE;
import static org.mucscale.engine.runtime.EngineFixture.groupchat;
import static org.mucscale.engine.runtime.EngineFixture.instantRoom;
import static org.mucscale.engine.runtime.EngineFixture.join;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.RoomLogRecord;
import org.mucscale.engine.store.StandaloneDataSource;

/** The engine wired end to end on a real (embedded, file-backed) HSQLDB: filter, store, metrics and MUC together. */
class MucScaleEngineTest {
    @TempDir
    Path dir;
    HikariDataSource db;

    @BeforeEach
    void openDatabase() {
        db = StandaloneDataSource.create("jdbc:hsqldb:file:" + dir.resolve("db/mucscale") + ";shutdown=true", "SA", "", 4);
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    private MucScaleEngine start(RecordingDelivery delivery, String... settings) {
        MucScaleEngine engine = MucScaleEngine.builder(SERVICE, EngineFixture.settings(dir.resolve("spill"), settings), delivery)
                .database(db, DatabaseType.HSQLDB, true).build();
        engine.start();
        return engine;
    }

    @Test
    void message_passesFilterStoreAndMetrics_onItsWayToEveryOccupant() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(join("bob@example.org/b", "lobby", "bob"));
            engine.process(groupchat("alice@example.org/a", "lobby", "hello bob"));
            engine.process(groupchat("alice@example.org/a", "lobby", "you are a fucking idiot"));

            await(() -> out.to("bob@example.org/b").stream().filter(x -> x.contains("<body>")).count() == 2);
            List<String> bodies = out.to("bob@example.org/b").stream().filter(x -> x.contains("<body>")).toList();
            assertThat(bodies.get(0)).contains("<body>hello bob</body>").contains("urn:xmpp:sid:0");
            assertThat(bodies.get(1)).doesNotContain("fucking").contains("<body>you are a ");
            // the room threads' flushes reach the host's delivery (through the probe occupant, which wraps it)
            assertThat(out.flushes.get()).isPositive();

            await(() -> history(engine).size() == 2);
            List<RoomLogRecord> logged = history(engine);
            assertThat(logged.get(0).body()).isEqualTo("hello bob");
            assertThat(logged.get(0).senderNick()).isEqualTo("alice");
            assertThat(logged.get(1).body()).doesNotContain("fucking");
            assertThat(logged.get(1).filterAction()).isEqualTo("MASK");

            assertThat(engine.metrics().registry().getCounters().keySet()).anyMatch(k -> k.startsWith("mucscale.filter.actions"));
            await(() -> engine.store().writer().queueDepth() == 0 && engine.store().stats().toString().contains("2"));
        }
    }

    @Test
    void abuseRefusals_reachTheMetrics_perLimitAndInTheDashboardTotal() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            // a decline nobody was invited for: the room must not reflect it to the victim
            engine.process(org.mucscale.engine.stanza.XmlElement.builder("message")
                    .attribute("from", "mallory@evil.example/x").attribute("to", "lobby@" + SERVICE)
                    .child(org.mucscale.engine.stanza.XmlElement.builder("x", "http://jabber.org/protocol/muc#user")
                            .child(org.mucscale.engine.stanza.XmlElement.builder("decline")
                                    .attribute("to", "victim@elsewhere.example").build()).build()).build());
            await(() -> engine.metrics().floodRejections("UNSOLICITED_DECLINE") == 1);
            assertThat(engine.metrics().registry().getCounters().get("mucscale.filter.flood.rejections").getCount())
                    .isEqualTo(1);
            assertThat(engine.metrics().registry().getCounters())
                    .containsKey("mucscale.filter.flood.rejections.unsolicited_decline");
            assertThat(out.to("victim@elsewhere.example")).isEmpty();
        }
    }

    @Test
    void probe_measuresItsOwnMessages_throughTheRealPath_andNeverReachesTheHost() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out, "mucscale.metrics.probe-interval", "100")) {
            await(() -> engine.metrics().registry().getHistograms().entrySet().stream()
                    .anyMatch(e -> e.getKey().contains("probe") && e.getValue().getSnapshot().size() > 0));
            assertThat(out.sent).noneMatch(s -> s.to() != null && s.to().contains(ProbeOccupant.DOMAIN));
        }
    }

    @Test
    void persistentRoom_survivesRestart_withItsHistory_throughTheDatabase() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out, "mucscale.muc.default-persistent", "true")) {
            engine.process(join("alice@example.org/a", "keep", "alice"));
            engine.process(instantRoom("alice@example.org/a", "keep"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("type=\"result\"")));
            await(() -> engine.store().rooms().roomJids().contains("keep@" + SERVICE));
            engine.process(groupchat("alice@example.org/a", "keep", "said before the restart"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("said before the restart")));
        }
        RecordingDelivery after = new RecordingDelivery();
        try (MucScaleEngine engine = start(after)) {
            engine.process(XmlElementQueries.discoItems("carol@example.org/c", SERVICE));
            await(() -> after.to("carol@example.org/c").stream().anyMatch(x -> x.contains("keep@" + SERVICE)));
            // history on join after the restart comes from the room log
            engine.process(join("carol@example.org/c", "keep", "carol"));
            await(() -> after.to("carol@example.org/c").stream().anyMatch(x -> x.contains("said before the restart")));
            String replayed = after.to("carol@example.org/c").stream().filter(x -> x.contains("said before the restart"))
                    .findFirst().orElseThrow();
            assertThat(replayed).contains("from=\"keep@" + SERVICE + "/alice\"", "urn:xmpp:delay", "stamp=");
        }
    }

    @Test
    void reconfigure_switchesFilterToReject_withoutRestart() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            Settings reject = engine.settings().withText("mucscale.filter.default-action", "REJECT");
            assertThat(engine.reconfigure(reject)).isEmpty();
            // the filter swaps its snapshot off the message path; wait until the new one is live
            await(() -> engine.filter().config().defaultAction().name().equals("REJECT"));
            engine.process(groupchat("alice@example.org/a", "lobby", "fucking hell"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("type=\"error\"")
                    && x.contains("not-acceptable")));
            assertThat(out.to("alice@example.org/a")).noneMatch(x -> x.contains("<body>fucking"));
        }
    }

    /** Issue 18.1 through the real filter: a second body is masked, and nicknames follow mucscale.filter.nicknames. */
    @Test
    void everyBodyAndNicknames_goThroughTheRealFilter_nicknamesSwitchable() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(XmlElement.builder("message").attribute("type", "groupchat")
                    .attribute("from", "alice@example.org/a").attribute("to", "lobby@" + SERVICE)
                    .textChild("body", "hello")
                    .child(XmlElement.builder("body").attribute("xml:lang", "de").text("you fucking idiot").build())
                    .build());
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("xml:lang=\"de\"")));
            assertThat(out.to("alice@example.org/a")).noneMatch(x -> x.contains("fucking"));

            engine.process(join("bob@example.org/b", "lobby", "fuckface"));
            await(() -> out.to("bob@example.org/b").stream().anyMatch(x -> x.contains("not-acceptable")));
            assertThat(out.to("alice@example.org/a")).noneMatch(x -> x.contains("fuckface"));

            assertThat(engine.reconfigure(engine.settings().withText("mucscale.filter.nicknames", "false"))).isEmpty();
            await(() -> !engine.filter().config().nicknames());
            engine.process(join("bob@example.org/b", "lobby", "fuckface"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("lobby@" + SERVICE + "/fuckface")));
        }
    }

    /**
     * Issue 40 through the real filter and metrics: a comma-format operator list matches prefixes and says so on the
     * dashboard, a word reversed under a right-to-left override is masked as shown, and a room address is refused.
     */
    @Test
    void commaListRenderedTextAndRoomAddress_throughTheRealFilter_listReportOnTheDashboard() throws Exception {
        Path list = dir.resolve("contentfilter.txt");
        java.nio.file.Files.writeString(list, "zorblax,glorp\n");
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out)) {
            assertThat(engine.metrics().dashboard().json(900)).contains("\"filterLists\":[]");
            assertThat(engine.reconfigure(engine.settings().withText("mucscale.filter.extra-lists", list.toString())))
                    .isEmpty();
            await(() -> engine.metrics().dashboard().json(900).contains(list + ": 2 entries, content-filter comma"
                    + " format, plain entries match as word prefixes"));
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(groupchat("alice@example.org/a", "lobby", "hi \u202Eecafxalbroz\u202C and glorps"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains(" and ******")));
            assertThat(out.to("alice@example.org/a")).filteredOn(x -> x.contains(" and ******")).singleElement()
                    .asString().contains("hi \u202E***********\u202C and ******").doesNotContain("xalbroz");
            engine.process(join("alice@example.org/a", "zorblax-r-1", "alice"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("not-acceptable")
                    && (x.contains("the room address &apos;zorblax-r-1&apos;")
                    || x.contains("the room address 'zorblax-r-1'"))));
        }
    }

    @Test
    void relativeSpillDirectory_resolvesAgainstHome_notTheWorkingDirectory() throws Exception {
        Path home = dir.resolve("home");
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = MucScaleEngine.builder(SERVICE, EngineFixture.settings(dir.resolve("unused"),
                        "mucscale.store.spill-directory", "store-files", "mucscale.store.durability", "WRITE_AHEAD_LOG"), out)
                .database(db, DatabaseType.HSQLDB, true).home(home).build()) {
            engine.start();
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(groupchat("alice@example.org/a", "lobby", "kept on disk first"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("kept on disk first")));
            assertThat(engine.store().config().spillDirectory()).isEqualTo(home.resolve("store-files"));
            assertThat(home.resolve("store-files")).isDirectory();
        }
        assertThat(Path.of("store-files")).doesNotExist();
    }

    @Test
    void start_twice_isRefused_andCloseIsIdempotent() {
        MucScaleEngine engine = start(new RecordingDelivery());
        assertThatThrownBy(engine::start).hasMessageContaining("starts once");
        engine.close();
        engine.close();
        assertThat(engine.muc()).isNull();
        assertThat(engine.store()).isNull();
    }

    @Test
    void start_withBrokenDatabase_failsClearly_andLeavesNothingRunning() {
        db.close(); // only this test's pools may run, so that any thread left is the engine's
        HikariDataSource broken = StandaloneDataSource.create("jdbc:hsqldb:file:" + dir.resolve("ro/db") + ";shutdown=true", "SA", "", 1);
        broken.close(); // a closed pool: every connection attempt fails
        MucScaleEngine engine = MucScaleEngine.builder(SERVICE, EngineFixture.settings(dir.resolve("spill2")), new RecordingDelivery())
                .database(broken, DatabaseType.HSQLDB, true).build();
        assertThatThrownBy(engine::start).hasMessageContaining("room log store could not start");
        assertThat(engine.metrics()).isNull();
        assertThat(engine.filter()).isNull();
        assertThat(ThreadLeaks.ours()).isEmpty();
    }

    private static List<RoomLogRecord> history(MucScaleEngine engine) {
        try {
            return engine.store().history("lobby@" + SERVICE, 10, 0);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(Check check) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!check.ok()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(10);
        }
    }

}
