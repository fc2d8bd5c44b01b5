package org.mucscale.engine.runtime.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.muc.MucConfig;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.muc.admin.RoomSettings;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.runtime.MucScaleSettings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The admin console's room pages against a real MUC service: the list's search and keyset paging, the room page's
 * occupants and forms (each with the CSRF token), and the actions, checked by what the occupants receive and by the
 * audit trail; a refused action says why and changes nothing.
 */
class RoomsAdminPageTest {
    final List<String> sent = new CopyOnWriteArrayList<>();
    MucService muc;
    AdminApi api;

    @BeforeEach
    void start() {
        Settings settings = Settings.fromText(MucScaleSettings.catalog(), Map.of("mucscale.muc.shard-threads", "2"));
        muc = new MucService("muc.example.org", MucConfig.from(settings), new Delivery() {
            @Override
            public void deliver(RenderedStanza stanza, Jid recipient) {
                sent.add(stanza.forRecipient(recipient));
            }

            @Override
            public void send(XmlElement stanza) {
                sent.add(stanza.toXml());
            }
        }, Clock.SYSTEM);
        muc.start();
        api = new AdminApi(new RoomAdmin(muc), settings);
    }

    @AfterEach
    void stop() {
        muc.stop();
    }

    private static Map<String, String> form(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private void waitFor(String fragment) throws InterruptedException {
        for (int i = 0; i < 200 && sent.stream().noneMatch(s -> s.contains(fragment)); i++) {
            Thread.sleep(10);
        }
        assertThat(sent).anyMatch(s -> s.contains(fragment));
    }

    @Test
    void list_searchesAndPagesByKey() {
        for (int i = 0; i < 60; i++) {
            RoomSettings s = new RoomSettings();
            s.owners = List.of("boss@example.org");
            s.description = i == 7 ? "the finals" : "casual";
            api.rooms().create(String.format("room%02d", i), s, false);
        }
        String first = RoomsAdminPage.page(api, Map.of(), "tok", null);
        assertThat(first).contains("60 room(s).", "?room=room00", "?room=room49", "id=\"next\" href=\"?after=room49\"")
                .doesNotContain("?room=room50");
        String second = RoomsAdminPage.page(api, Map.of("after", "room49"), "tok", null);
        assertThat(second).contains("?room=room50", "?room=room59").doesNotContain("?room=room49\"", "id=\"next\"");
        assertThat(RoomsAdminPage.page(api, Map.of("search", "FINALS"), "tok", null))
                .contains("1 room(s) match.", "?room=room07").doesNotContain("?room=room08");
        assertThat(first).contains("name=\"csrf\" value=\"tok\"");
    }

    @Test
    void roomPage_actionsReachOccupants_refusalsSayWhy_auditRecordsThem() throws Exception {
        assertThat(RoomsAdminPage.act(api, form("action", "create", "roomName", "hall", "owners", "boss@example.org"),
                "admin:root", "127.0.0.1")).contains("Created room hall");
        muc.process(XmlElement.builder("presence").attribute("from", "ann@example.org/pc")
                .attribute("to", "hall@muc.example.org/ann")
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build());
        waitFor("from=\"hall@muc.example.org/ann\"");
        String page = RoomsAdminPage.page(api, Map.of("room", "hall"), "tok", null);
        assertThat(page).contains("<td>ann@example.org/pc</td>", "<td>participant</td>", "class=\"occupant\"",
                "name=\"csrf\" value=\"tok\"", "boss@example.org");

        assertThat(RoomsAdminPage.act(api, form("action", "add-affiliation", "room", "hall", "affiliation", "member",
                "jids", "a@example.org, b@example.org\nc@example.org"), "admin:root", "127.0.0.1")).contains("Added 3");
        assertThat(api.rooms().room("hall").members()).containsExactly("a@example.org", "b@example.org",
                "c@example.org");
        assertThat(RoomsAdminPage.act(api, form("action", "update", "room", "hall", "naturalName", "Hall",
                "description", "d", "moderated", "1", "allowPM", "none"), "admin:root", "127.0.0.1")).contains("104");
        waitFor("code=\"104\"");
        assertThat(api.rooms().room("hall").moderated()).isTrue();
        assertThat(RoomsAdminPage.act(api, form("action", "occupant", "room", "hall", "nick", "ann",
                "do", "kick", "reason", "spam"), "admin:root", "127.0.0.1")).contains("Done: kick ann");
        waitFor("code=\"307\"");
        assertThat(RoomsAdminPage.act(api, form("action", "remove-affiliation", "room", "hall",
                "jid", "boss@example.org"), "admin:root", "127.0.0.1")).startsWith("Not done:").contains("owner");
        assertThat(api.rooms().room("hall").owners()).containsExactly("boss@example.org");
        assertThat(RoomsAdminPage.act(api, form("action", "destroy", "room", "hall", "reason", "bye"),
                "admin:root", "127.0.0.1")).contains("destroyed");
        assertThat(RoomsAdminPage.page(api, Map.of("room", "hall"), "tok", null)).contains("no room &#39;hall&#39;");
        List<AuditTrail.Entry> audit = api.audit().newest(10);
        assertThat(audit).extracting(AuditTrail.Entry::path).startsWith("destroy hall", "remove-affiliation hall");
        assertThat(audit.get(1).status()).isEqualTo(409);
        assertThat(audit).allMatch(e -> e.who().equals("admin:root"));
        // the Rooms page shows the newest changes, the refusal with its reason
        String rooms = RoomsAdminPage.page(api, Map.of(), "tok", null);
        assertThat(rooms).contains("id=\"audit\"", "in memory only", "PAGE destroy hall", "<td>admin:root</td>",
                "409 ");
        assertThat(rooms.indexOf("destroy hall")).isLessThan(rooms.indexOf("remove-affiliation hall"));
    }
}
