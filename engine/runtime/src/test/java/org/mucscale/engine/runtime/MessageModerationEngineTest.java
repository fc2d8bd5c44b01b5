package org.mucscale.engine.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.runtime.EngineFixture.SERVICE;
import static org.mucscale.engine.runtime.EngineFixture.groupchat;
import static org.mucscale.engine.runtime.EngineFixture.instantRoom;
import static org.mucscale.engine.runtime.EngineFixture.join;
import static org.mucscale.engine.runtime.MucScaleEngineTest.await;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.StandaloneDataSource;

/**
 * XEP-0425 moderation through the whole engine on a real (embedded, file-backed) HSQLDB: the retraction reaches every
 * occupant, the room log row loses its text (also when the message was still queued), the dashboard counts it.
 */
class MessageModerationEngineTest {
    private static final Pattern STANZA_ID = Pattern.compile("<stanza-id[^>]* id=\"([^\"]+)\"");
    private static final String ROOM = "lobby@" + SERVICE;

    @TempDir
    Path dir;
    HikariDataSource db;

    @BeforeEach
    void openDatabase() {
        db = StandaloneDataSource.create("jdbc:hsqldb:file:" + dir.resolve("db/mucscale") + ";shutdown=true", "SA", "",
                4);
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    private MucScaleEngine start(RecordingDelivery delivery, String... settings) {
        MucScaleEngine engine = MucScaleEngine.builder(SERVICE, EngineFixture.settings(dir.resolve("spill"), settings),
                delivery).database(db, DatabaseType.HSQLDB, true).build();
        engine.start();
        return engine;
    }

    /** An engine whose filter flags (delivers, logs as FLAG) the term "zorblax", with or without the review queue. */
    private MucScaleEngine startFlagging(RecordingDelivery out, boolean reviewQueue) throws Exception {
        Path list = dir.resolve("words.txt");
        java.nio.file.Files.writeString(list, "zorblax;severity=HIGH;force\n");
        return start(out, "mucscale.filter.default-action", "FLAG", "mucscale.filter.extra-lists", list.toString(),
                "mucscale.filter.review-queue", Boolean.toString(reviewQueue));
    }

    private static XmlElement moderate(String from, String stanzaId, String reason) {
        return XmlElement.builder("iq").attribute("type", "set").attribute("id", "mod-" + stanzaId)
                .attribute("from", from).attribute("to", ROOM)
                .child(XmlElement.builder("moderate", "urn:xmpp:message-moderate:1").attribute("id", stanzaId)
                        .child(XmlElement.builder("retract", "urn:xmpp:message-retract:1").build())
                        .textChild("reason", reason).build())
                .build();
    }

    /** alice owns the lobby, bob and carol joined, bob said something abusive; its stanza id. */
    private static String abusiveMessage(MucScaleEngine engine, RecordingDelivery out) throws Exception {
        engine.process(join("alice@example.org/a", "lobby", "alice"));
        engine.process(instantRoom("alice@example.org/a", "lobby"));
        engine.process(join("bob@example.org/b", "lobby", "bob"));
        engine.process(join("carol@example.org/c", "lobby", "carol"));
        engine.process(groupchat("bob@example.org/b", "lobby", "you are all cheaters"));
        await(() -> out.to("carol@example.org/c").stream().anyMatch(x -> x.contains("you are all cheaters")));
        String reflected = out.to("bob@example.org/b").stream().filter(x -> x.contains("you are all cheaters"))
                .findFirst().orElseThrow();
        Matcher m = STANZA_ID.matcher(reflected);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    private String[] row(String stanzaId) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT body, subject, filterAction, stanza FROM mucscaleRoomLog WHERE roomJid = ? AND stanzaId = ?")) {
            ps.setString(1, ROOM);
            ps.setString(2, stanzaId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)}
                        : null;
            }
        }
    }

    @Test
    void retraction_reachesEveryOccupant_rowLosesItsBody_laterJoinerSeesTombstone_dashboardCounts() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = start(out)) {
            String id = abusiveMessage(engine, out);
            await(() -> row(id) != null); // written (the batch age is 20 ms in tests)
            assertThat(row(id)[0]).isEqualTo("you are all cheaters");

            engine.process(moderate("alice@example.org/a", id, "cheating accusations"));
            for (String who : List.of("alice@example.org/a", "bob@example.org/b", "carol@example.org/c")) {
                await(() -> out.to(who).stream().anyMatch(x -> x.contains("<retract") && x.contains(id)));
            }
            await(() -> "RETRACTED".equals(row(id)[2]));
            String[] r = row(id);
            assertThat(r[0]).as("body").isNull();
            assertThat(r[1]).as("subject").isNull();
            assertThat(r[3]).contains("urn:xmpp:message-retract:1", "retracted", "cheating accusations",
                    "from=\"" + ROOM + "/bob\"", id).doesNotContain("you are all cheaters");
            assertThat(engine.metrics().moderations()).isEqualTo(1);

            engine.process(join("dave@example.org/d", "lobby", "dave"));
            await(() -> out.to("dave@example.org/d").stream().anyMatch(x -> x.contains("urn:xmpp:delay")));
            assertThat(out.to("dave@example.org/d")).noneMatch(x -> x.contains("you are all cheaters"))
                    .anyMatch(x -> x.contains("<retracted") && x.contains(id));
        }
    }

    @Test
    void reviewQueue_flaggedMessageWaitsWithItsTerms_moderatorsRetractionTakesItOut() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = startFlagging(out, true)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(join("bob@example.org/b", "lobby", "bob"));
            engine.process(groupchat("bob@example.org/b", "lobby", "a harmless line"));
            engine.process(groupchat("bob@example.org/b", "lobby", "you zorblax"));
            await(() -> out.to("alice@example.org/a").stream().anyMatch(x -> x.contains("you zorblax")));
            await(() -> engine.store().review().waiting(ROOM, 10).size() == 1);
            var entry = engine.store().review().waiting(ROOM, 10).get(0);
            assertThat(entry.body()).as("delivered unmasked, reviewed as sent").isEqualTo("you zorblax");
            assertThat(entry.terms()).isEqualTo("zorblax");
            assertThat(entry.senderNick()).isEqualTo("bob");

            engine.process(moderate("alice@example.org/a", entry.stanzaId(), "slur"));
            await(() -> engine.store().review().waiting(ROOM, 10).isEmpty());
            await(() -> "RETRACTED".equals(row(entry.stanzaId())[2]));
            assertThat(row(entry.stanzaId())[0]).isNull();
        }
    }

    @Test
    void reviewQueue_operatorRetractsFromTheQueue_occupantsToldRowTombstonedQueueEmpty() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = startFlagging(out, true)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(join("bob@example.org/b", "lobby", "bob"));
            engine.process(groupchat("bob@example.org/b", "lobby", "you zorblax"));
            await(() -> engine.store().review().waiting(ROOM, 10).size() == 1);
            String id = engine.store().review().waiting(ROOM, 10).get(0).stanzaId();

            assertThat(engine.retractReviewed(ROOM, id, "reviewed: slur"))
                    .isEqualTo(org.mucscale.engine.muc.RoomLogSink.Retraction.RETRACTED);
            for (String who : List.of("alice@example.org/a", "bob@example.org/b")) {
                await(() -> out.to(who).stream().anyMatch(x -> x.contains("<retract") && x.contains(id)
                        && x.contains("by=\"" + ROOM + "\"")));
            }
            assertThat(engine.store().review().waiting(null, 10)).isEmpty();
            await(() -> "RETRACTED".equals(row(id)[2]));
            assertThat(row(id)[0]).isNull();
            assertThat(engine.metrics().moderations()).isEqualTo(1);
        }
    }

    @Test
    void reviewAdminPage_listsEscaped_retractAndDismissWork_badInputRefusedClearly() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = startFlagging(out, true)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(groupchat("alice@example.org/a", "lobby", "<script>zorblax</script>"));
            engine.process(groupchat("alice@example.org/a", "lobby", "zorblax twice"));
            await(() -> engine.store().review().waiting(ROOM, 10).size() == 2);
            var waiting = engine.store().review().waiting(ROOM, 10);
            String page = ReviewAdmin.page(engine, "tok\"en", null);
            assertThat(page).contains("&lt;script&gt;zorblax&lt;/script&gt;", "zorblax twice", "tok&quot;en",
                    "name=\"pageID\" content=\"mucscale-review\"").doesNotContain("<script>");

            assertThat(ReviewAdmin.act(engine, java.util.Map.of("action", "dismiss", "room", ROOM,
                    "id", waiting.get(1).stanzaId()))).startsWith("Dismissed");
            assertThat(ReviewAdmin.act(engine, java.util.Map.of("action", "retract", "room", ROOM,
                    "id", waiting.get(0).stanzaId(), "reason", "no scripts"))).startsWith("Retracted");
            assertThat(engine.store().review().waiting(null, 10)).isEmpty();
            assertThat(ReviewAdmin.page(engine, "t", null)).contains("Nothing is waiting");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReviewAdmin.act(engine,
                    java.util.Map.of("action", "explode", "room", ROOM, "id", "x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retract-add-term or dismiss");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReviewAdmin.act(engine,
                    java.util.Map.of("action", "retract", "room", ROOM)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("required");
        }
    }

    private String filterActionOf(String room, String body) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT filterAction FROM mucscaleRoomLog WHERE roomJid = ? AND body = ?")) {
            ps.setString(1, room);
            ps.setString(2, body);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? String.valueOf(rs.getString(1)) : null;
            }
        }
    }

    @Test
    void reviewAdmin_retractAndAddTerm_retractsAndCatchesTheTermInThatRoomOnly_badInputChangesNothing()
            throws Exception {
        String hall = "hall@" + SERVICE;
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = startFlagging(out, true)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(join("alice@example.org/a", "hall", "alice"));
            engine.process(instantRoom("alice@example.org/a", "hall"));
            engine.process(join("bob@example.org/b", "lobby", "bob"));
            engine.process(join("bob@example.org/b", "hall", "bob"));
            engine.process(groupchat("bob@example.org/b", "lobby", "you zorblax plonkwort"));
            await(() -> engine.store().review().waiting(ROOM, 10).size() == 1);
            String id = engine.store().review().waiting(ROOM, 10).get(0).stanzaId();
            assertThat(ReviewAdmin.page(engine, "t", null)).contains("value=\"retract-add-term\"",
                    "name=\"term\" required maxlength=\"500\" value=\"zorblax\"");

            // Bad input: a clear error, nothing retracted, no term added.
            java.util.function.Function<String, java.util.Map<String, String>> form = term -> java.util.Map.of(
                    "action", "retract-add-term", "room", ROOM, "id", id, "term", term);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReviewAdmin.act(engine, form.apply(" , ")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("term").hasMessageContaining("required");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReviewAdmin.act(engine, form.apply("plonkwort, 69")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'69'")
                    .hasMessageContaining("nothing was retracted");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReviewAdmin.act(engine, java.util.Map.of(
                    "action", "retract-add-term", "room", hall, "id", id, "term", "plonkwort")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not waiting for review");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReviewAdmin.act(engine, java.util.Map.of(
                    "action", "retract-add-term", "room", ROOM, "id", "no-such-id", "term", "plonkwort")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not waiting for review");
            assertThat(engine.store().review().isWaiting(ROOM, id)).isTrue();
            assertThat(engine.filter().roomRules()).isEmpty();
            assertThat(out.to("bob@example.org/b")).noneMatch(x -> x.contains("<retract"));

            assertThat(ReviewAdmin.act(engine, java.util.Map.of("action", "retract-add-term", "room", ROOM, "id", id,
                    "reason", "abuse", "term", "zorblax, plonkwort")))
                    .startsWith("Retracted").contains("'zorblax', 'plonkwort' now in the room's filter list");
            for (String who : List.of("alice@example.org/a", "bob@example.org/b")) {
                await(() -> out.to(who).stream().anyMatch(x -> x.contains("<retract") && x.contains(id)));
            }
            await(() -> "RETRACTED".equals(row(id)[2]));
            assertThat(row(id)[0]).isNull();
            assertThat(engine.store().review().waiting(null, 10)).isEmpty();

            engine.process(groupchat("bob@example.org/b", "hall", "plonkwort in the hall"));
            engine.process(groupchat("bob@example.org/b", "lobby", "plonkwort in the lobby"));
            await(() -> engine.store().review().waiting(null, 10).size() == 1);
            var caught = engine.store().review().waiting(null, 10).get(0);
            assertThat(caught.roomJid()).isEqualTo(ROOM);
            assertThat(caught.body()).isEqualTo("plonkwort in the lobby");
            assertThat(caught.terms()).isEqualTo("plonkwort");
            await(() -> filterActionOf(ROOM, "plonkwort in the lobby") != null);
            assertThat(filterActionOf(ROOM, "plonkwort in the lobby")).isEqualTo("FLAG");
            await(() -> filterActionOf(hall, "plonkwort in the hall") != null);
            assertThat(filterActionOf(hall, "plonkwort in the hall")).as("another room: passes").isEqualTo("null");
        }
    }

    @Test
    void reviewQueue_off_flaggedMessagesAreOnlyLogged() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        try (MucScaleEngine engine = startFlagging(out, false)) {
            engine.process(join("alice@example.org/a", "lobby", "alice"));
            engine.process(instantRoom("alice@example.org/a", "lobby"));
            engine.process(groupchat("alice@example.org/a", "lobby", "you zorblax"));
            await(() -> engine.store().history(ROOM, 10, 0).stream().anyMatch(r -> "FLAG".equals(r.filterAction())));
            assertThat(engine.store().writer().awaitIdle(10_000)).isTrue();
            assertThat(engine.store().review().waiting(null, 10)).isEmpty();
        }
    }

    @Test
    void retraction_ofAMessageStillQueued_neverLetsItsBodyIntoTheDatabase() throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        String id;
        try (MucScaleEngine engine = start(out, "mucscale.store.max-batch-age", "600000")) {
            id = abusiveMessage(engine, out);
            assertThat(engine.store().writer().queueDepth()).as("still queued").isPositive();
            engine.process(moderate("alice@example.org/a", id, "gone"));
            await(() -> out.to("carol@example.org/c").stream().anyMatch(x -> x.contains("<retract")));
            assertThat(row(id)).as("not written yet").isNull();
        } // close drains the queue into the database
        String[] r = row(id);
        assertThat(r).isNotNull();
        assertThat(r[0]).isNull();
        assertThat(r[2]).isEqualTo("RETRACTED");
        assertThat(r[3]).contains("retracted").doesNotContain("you are all cheaters");
    }

    /**
     * Issue 16: a retracted message is absent from every later archive page: the page holds the tombstone in its
     * place, whether the record was still queued for the database when it was retracted or already stored.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void retraction_laterArchivePagesHoldTheTombstoneNotTheBody(boolean stillQueued) throws Exception {
        RecordingDelivery out = new RecordingDelivery();
        String[] settings = stillQueued ? new String[] {"mucscale.store.max-batch-age", "600000"} : new String[0];
        try (MucScaleEngine engine = start(out, settings)) {
            String id = abusiveMessage(engine, out);
            engine.process(groupchat("bob@example.org/b", "lobby", "sorry, gg"));
            await(() -> out.to("carol@example.org/c").stream().anyMatch(x -> x.contains("sorry, gg")));
            if (stillQueued) {
                assertThat(engine.store().writer().queueDepth()).as("still queued").isPositive();
            } else {
                await(() -> row(id) != null);
                assertThat(row(id)[0]).as("stored with its body").isEqualTo("you are all cheaters");
            }
            assertThat(archivePage(engine, out)).as("before").contains("you are all cheaters", "sorry, gg");

            engine.process(moderate("alice@example.org/a", id, "gone"));
            await(() -> out.to("carol@example.org/c").stream().anyMatch(x -> x.contains("<retract")));
            if (!stillQueued) {
                await(() -> "RETRACTED".equals(row(id)[2]));
            }
            String after = archivePage(engine, out);
            assertThat(after).doesNotContain("you are all cheaters").contains("sorry, gg", "<retracted", id);
        }
    }

    /** carol's archive query for the lobby: every result message and the reply, as one string. */
    private static String archivePage(MucScaleEngine engine, RecordingDelivery out) throws Exception {
        String qid = "page-" + System.nanoTime();
        engine.process(XmlElement.builder("iq").attribute("type", "set").attribute("id", qid)
                .attribute("from", "carol@example.org/c").attribute("to", ROOM)
                .child(XmlElement.builder("query", "urn:xmpp:mam:2").attribute("queryid", qid).build()).build());
        await(() -> out.to("carol@example.org/c").stream().anyMatch(x -> x.startsWith("<iq") && x.contains(qid)));
        StringBuilder page = new StringBuilder();
        for (String x : out.to("carol@example.org/c")) {
            if (x.contains("queryid=\"" + qid + "\"") || (x.startsWith("<iq") && x.contains(qid))) {
                page.append(x).append('\n');
            }
        }
        assertThat(page).as("the query was answered with a result").contains("type=\"result\"").contains("<fin");
        return page.toString();
    }
}
