package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The room administration HTTP API (issue 37) served by the standalone engine's HTTP server, behind a real Prosody,
 * with real XMPP clients in the room asserting what each change gives them (104, groupchat from the room, 307, 301,
 * {@code <destroy/>}), and every refusal with its status and reason: no or wrong credentials 401, a disabled API
 * 403, unknown service or room 404, malformed JSON or a room name not matching the path 400, an existing room or the
 * last owner 409, a body over the limit 413.
 */
class AdminApiEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String SECRET = "api-secret-0123456789abcdef";
    private static final String ROOM = "arena@" + E2eFixture.MUC;
    private static final String MUC_USER = "http://jabber.org/protocol/muc#user";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private String base;

    private HttpResponse<String> call(String method, String path, String body, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (auth != null) {
            b.header("Authorization", auth);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> call(String method, String path, String body) throws Exception {
        return call(method, path, body, SECRET);
    }

    private static void join(RawXmppClient c, String nick) throws Exception {
        join(c, ROOM, nick);
    }

    private static void join(RawXmppClient c, String room, String nick) throws Exception {
        c.write("<presence to='" + room + "/" + nick + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
        c.expect(e -> e.name().equals("presence") && (room + "/" + nick).equals(e.attribute("from"))
                && e.child("x", MUC_USER) != null && hasStatus(e, "110"), "joined " + nick, WAIT);
    }

    private static boolean hasStatus(XmlElement e, String code) {
        XmlElement x = e.child("x", MUC_USER);
        if (x == null) {
            return false;
        }
        for (XmlElement s : x.elements("status")) {
            if (code.equals(s.attribute("code"))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void api_changesSeenByRealClients_refusalsSayWhy_auditRecordsChanges() throws Exception {
        Map<String, String> settings = Map.of("mucscale.admin.api-enabled", "true",
                "mucscale.admin.api-secret", SECRET, "mucscale.admin.api-max-body-bytes", "2048",
                "mucscale.metrics.probe-enabled", "false");
        try (E2eFixture fx = new E2eFixture(3, settings)) {
            base = "http://127.0.0.1:" + fx.server.engine().http().port() + "/plugins/mucscale/v1";
            String owner = E2eFixture.user(0) + "@" + E2eFixture.DOMAIN;
            String member = E2eFixture.user(1) + "@" + E2eFixture.DOMAIN;

            // authentication first: nothing about rooms is answered without it
            HttpResponse<String> r = call("GET", "/chatrooms", null, null);
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).isPresent();
            r = call("GET", "/chatrooms", null, "wrong-secret-wrong-secret");
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.body()).contains("not valid").doesNotContain("wrong-secret");

            String entity = "{\"roomName\":\"arena\",\"naturalName\":\"Arena\",\"description\":\"pvp\","
                    + "\"publicRoom\":true,\"maxUsers\":50,\"allowPM\":\"participants\","
                    + "\"broadcastPresenceRoles\":[\"moderator\",\"participant\",\"visitor\"],"
                    + "\"owners\":[\"" + owner + "\"],\"members\":[\"" + member + "\"]}";
            r = call("POST", "/chatrooms?servicename=muc", entity);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            assertThat(r.body()).contains("\"roomName\":\"arena\"", "\"naturalName\":\"Arena\"", "\"maxUsers\":50",
                    "\"allowPM\":\"participants\"", "\"persistent\":true");
            assertThat(call("POST", "/chatrooms", entity).statusCode()).isEqualTo(409);
            assertThat(call("GET", "/chatrooms?servicename=conference", null).statusCode()).isEqualTo(404);
            r = call("GET", "/chatrooms?search=arena&limit=10", null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"roomName\":\"arena\"", "\"total\":1");
            assertThat(call("GET", "/chatrooms/nosuchroom", null).statusCode()).isEqualTo(404);

            RawXmppClient c0 = fx.raw(0);
            RawXmppClient c1 = fx.raw(1);
            RawXmppClient c2 = fx.raw(2);
            join(c0, "boss");
            join(c1, "mem");
            join(c2, "cheater");
            r = call("GET", "/chatrooms/arena/occupants", null);
            assertThat(r.body()).contains("\"userAddress\":\"" + c2.jid() + "\"", "\"jid\":\"" + ROOM + "/cheater\"",
                    "\"role\":\"moderator\"");

            // configuration change: every occupant gets 104 from the room
            r = call("PATCH", "/chatrooms/arena", "{\"description\":\"pvp, no cheats\"}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).contains("\"description\":\"pvp, no cheats\"", "\"naturalName\":\"Arena\"");
            for (RawXmppClient c : List.of(c0, c1, c2)) {
                c.expect(e -> e.name().equals("message") && ROOM.equals(e.attribute("from")) && hasStatus(e, "104"),
                        "status 104", WAIT);
            }
            assertThat(call("PATCH", "/chatrooms/arena", "{\"roomName\":\"other\"}").body())
                    .contains("does not match");
            r = call("PATCH", "/chatrooms/arena", "{\"description\": }");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("malformed JSON at character");
            r = call("PATCH", "/chatrooms/arena", "{\"moderated\": \"yes\"}");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("moderated must be true or false");
            r = call("PATCH", "/chatrooms/arena", "{\"description\":\"" + "x".repeat(3000) + "\"}");
            assertThat(r.statusCode()).isEqualTo(413);

            // a message into the room, as the room
            assertThat(call("POST", "/chatrooms/arena/messages", "{\"body\":\"tournament at 8\"}").statusCode())
                    .isEqualTo(201);
            for (RawXmppClient c : List.of(c0, c1, c2)) {
                XmlElement m = c.expect(e -> e.name().equals("message") && "tournament at 8".equals(
                        e.childText("body")), "announcement", WAIT);
                assertThat(m.attribute("from")).isEqualTo(ROOM);
                assertThat(m.attribute("type")).isEqualTo("groupchat");
                assertThat(m.child("announcement", "urn:mucscale:announcement:0")).isNotNull();
            }

            // kick: 307 to the kicked occupant and to the others, with the reason
            r = call("DELETE", "/chatrooms/arena/occupants/cheater?reason=aimbot", null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            XmlElement kicked = c2.expect(e -> e.name().equals("presence") && hasStatus(e, "307"), "kicked", WAIT);
            assertThat(kicked.child("x", MUC_USER).child("item").childText("reason")).isEqualTo("aimbot");
            c0.expect(e -> e.name().equals("presence") && (ROOM + "/cheater").equals(e.attribute("from"))
                    && hasStatus(e, "307"), "kick seen", WAIT);

            // ban through the outcasts list: 301
            assertThat(call("POST", "/chatrooms/arena/outcasts/" + member, null).statusCode()).isEqualTo(201);
            XmlElement banned = c1.expect(e -> e.name().equals("presence") && hasStatus(e, "301"), "banned", WAIT);
            assertThat(banned.child("x", MUC_USER).child("item").attribute("affiliation")).isEqualTo("outcast");
            r = call("DELETE", "/chatrooms/arena/owners/" + owner, null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
            r = call("PATCH", "/chatrooms/arena", "{\"members\":[\"x@example.test\"],\"outcasts\":[\"x@example.test\"]}");
            assertThat(r.statusCode()).isEqualTo(409);
            assertThat(call("GET", "/chatrooms/arena/members", null).body()).doesNotContain("x@example.test");

            // destroy with reason and alternate venue
            r = call("DELETE", "/chatrooms/arena?reason=season%20over&alternateVenue=lobby@" + E2eFixture.MUC, null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            XmlElement gone = c0.expect(e -> e.name().equals("presence") && e.child("x", MUC_USER) != null
                    && e.child("x", MUC_USER).child("destroy") != null, "destroy", WAIT);
            XmlElement destroy = gone.child("x", MUC_USER).child("destroy");
            assertThat(destroy.attribute("jid")).isEqualTo("lobby@" + E2eFixture.MUC);
            assertThat(destroy.childText("reason")).isEqualTo("season over");
            assertThat(call("GET", "/chatrooms/arena", null).statusCode()).isEqualTo(404);

            // the audit trail has every change with its result, and never the secret
            r = call("GET", "/audit?limit=50", null);
            assertThat(r.body()).contains("\"who\":\"shared-secret\"", "\"from\":\"127.0.0.1\"",
                    "\"path\":\"/plugins/mucscale/v1/chatrooms/arena/occupants/cheater\"", "\"status\":409")
                    .doesNotContain(SECRET);

            // off until enabled
            fx.server.engine().reconfigure(fx.server.engine().settings().withText("mucscale.admin.api-enabled",
                    "false"));
            r = call("GET", "/chatrooms", null);
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("mucscale.admin.api-enabled");
        }
    }

    @Test
    void invite_reachesInviteesFromTheRoom_membersOnlyMakesThemMembers_badInputChangesNothing() throws Exception {
        Map<String, String> settings = Map.of("mucscale.admin.api-enabled", "true",
                "mucscale.admin.api-secret", SECRET, "mucscale.metrics.probe-enabled", "false",
                "mucscale.metrics.prometheus-enabled", "true");
        try (E2eFixture fx = new E2eFixture(4, settings)) {
            base = "http://127.0.0.1:" + fx.server.engine().http().port() + "/plugins/mucscale/v1";
            String owner = E2eFixture.user(0) + "@" + E2eFixture.DOMAIN;
            String ann = E2eFixture.user(1) + "@" + E2eFixture.DOMAIN;
            String bob = E2eFixture.user(2) + "@" + E2eFixture.DOMAIN;
            String cheater = E2eFixture.user(3) + "@" + E2eFixture.DOMAIN;
            String club = "club@" + E2eFixture.MUC;
            HttpResponse<String> r = call("POST", "/chatrooms", "{\"roomName\":\"club\",\"membersOnly\":true,"
                    + "\"owners\":[\"" + owner + "\"],\"outcasts\":[\"" + cheater + "\"]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            RawXmppClient c1 = fx.raw(1);
            RawXmppClient c2 = fx.raw(2);
            for (RawXmppClient c : List.of(c1, c2)) {
                c.write("<presence/>"); // online: Prosody hands a message to the bare JID to this session
            }

            // members-only: without an invitation ann cannot enter
            c1.write("<presence to='" + club + "/ann'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            XmlElement refused = c1.expect(e -> e.name().equals("presence") && "error".equals(e.attribute("type")),
                    "members-only refusal", WAIT);
            assertThat(refused.child("error").child("registration-required",
                    "urn:ietf:params:xml:ns:xmpp-stanzas")).isNotNull();

            // the REST API plugin's MUCInvitationsEntity: a mediated invitation from the room's address
            r = call("POST", "/chatrooms/club/invite?servicename=muc", "{\"reason\":\"final at 8\","
                    + "\"jidsToInvite\":[\"" + ann + "\"]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).contains("\"invited\":[\"" + ann + "\"]");
            XmlElement inv = c1.expect(e -> e.name().equals("message") && e.child("x", MUC_USER) != null
                    && e.child("x", MUC_USER).child("invite") != null, "invitation", WAIT);
            assertThat(inv.attribute("from")).isEqualTo(club);
            XmlElement invite = inv.child("x", MUC_USER).child("invite");
            assertThat(invite.attribute("from")).isEqualTo(club);
            assertThat(invite.childText("reason")).isEqualTo("final at 8");
            assertThat(call("GET", "/chatrooms/club/members", null).body()).contains(ann);
            join(c1, club, "ann"); // the invitation can be followed: ann is a member now

            // the single form /invite/{jid}; its body may be left out
            r = call("POST", "/chatrooms/club/invite/" + bob, null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            XmlElement inv2 = c2.expect(e -> e.name().equals("message") && club.equals(e.attribute("from"))
                    && e.child("x", MUC_USER) != null, "invitation without reason", WAIT);
            assertThat(inv2.child("x", MUC_USER).child("invite").attribute("from")).isEqualTo(club);
            assertThat(inv2.child("x", MUC_USER).child("invite").child("reason")).isNull();
            join(c2, club, "bob");

            // refusals, each naming the problem; nothing is changed and nobody invited
            r = call("POST", "/chatrooms/nosuch/invite", "{\"jidsToInvite\":[\"" + ann + "\"]}");
            assertThat(r.statusCode()).isEqualTo(404);
            assertThat(r.body()).contains("no room \\u0027nosuch\\u0027"); // JsonText escapes quotes
            r = call("POST", "/chatrooms/club/invite", "{\"reason\":\"x\"}");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("jidsToInvite");
            r = call("POST", "/chatrooms/club/invite", "{\"jidsToInvite\":\"\"}");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("jidsToInvite: \\u0027\\u0027 is not a user");
            r = call("POST", "/chatrooms/club/invite", "{\"jidsToInvite\":[\"new@example.test\"],\"reason\":7}");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("reason must be a string");
            r = call("POST", "/chatrooms/club/invite", "{\"jidsToInvite\":[\"new@example.test\"");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("malformed JSON");
            r = call("POST", "/chatrooms/club/invite", "{\"jidsToInvite\":[\"new@example.test\",\"" + cheater
                    + "\"]}");
            assertThat(r.statusCode()).isEqualTo(409);
            assertThat(r.body()).contains(cheater + " is banned");
            assertThat(call("GET", "/chatrooms/club/members", null).body()).doesNotContain("new@example.test");
            assertThat(call("GET", "/chatrooms/club/outcasts", null).body()).contains(cheater);
            r = call("GET", "/audit?limit=10", null);
            assertThat(r.body()).contains("\"path\":\"/plugins/mucscale/v1/chatrooms/club/invite\"",
                    "\"status\":409");

            // every change and refusal is counted: 9 calls that change (or try to), 6 of them refused; shown on the
            // dashboard and exported to Prometheus
            String site = "http://127.0.0.1:" + fx.server.engine().http().port();
            r = http.send(HttpRequest.newBuilder(URI.create(site + "/mucscale-dashboard-data?range=60")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).contains("\"adminChanges\":9,\"adminRefusals\":6");
            r = http.send(HttpRequest.newBuilder(URI.create(site + "/metrics")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).containsPattern("(?m)^mucscale_admin_changes(_total)? 9(\\.0)?$")
                    .containsPattern("(?m)^mucscale_admin_refusals(_total)? 6(\\.0)?$");
        }
    }

    private HttpResponse<String> xml(String method, String path, String body, String accept) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).header("Authorization", SECRET);
        if (body != null) {
            b.header("Content-Type", "application/xml");
        }
        if (accept != null) {
            b.header("Accept", accept);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void xml_bodiesAndAnswersInTheRestApiPluginsElementNames_malformedAndDoctypeRefused() throws Exception {
        Map<String, String> settings = Map.of("mucscale.admin.api-enabled", "true",
                "mucscale.admin.api-secret", SECRET, "mucscale.metrics.probe-enabled", "false");
        try (E2eFixture fx = new E2eFixture(2, settings)) {
            base = "http://127.0.0.1:" + fx.server.engine().http().port() + "/plugins/mucscale/v1";
            String owner = E2eFixture.user(0) + "@" + E2eFixture.DOMAIN;
            String guest = E2eFixture.user(1) + "@" + E2eFixture.DOMAIN;
            String hall = "hall@" + E2eFixture.MUC;
            String x = "application/xml";
            HttpResponse<String> r = xml("POST", "/chatrooms", "<?xml version='1.0'?><chatRoom>"
                    + "<roomName>hall</roomName><naturalName>Great &amp; Hall</naturalName><maxUsers>40</maxUsers>"
                    + "<moderated>true</moderated><broadcastPresenceRoles><broadcastPresenceRole>moderator"
                    + "</broadcastPresenceRole><broadcastPresenceRole>participant</broadcastPresenceRole>"
                    + "</broadcastPresenceRoles><owners><owner>" + owner + "</owner></owners><admins/>"
                    + "</chatRoom>", x);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/xml");
            assertThat(r.body()).startsWith("<?xml").contains("<chatRoom><roomName>hall</roomName>",
                    "<naturalName>Great &amp; Hall</naturalName>", "<maxUsers>40</maxUsers>",
                    "<moderated>true</moderated>", "<owners><owner>" + owner + "</owner></owners>",
                    "<broadcastPresenceRole>moderator</broadcastPresenceRole>",
                    "<broadcastPresenceRole>participant</broadcastPresenceRole>").doesNotContain("visitor");
            // the same room read as JSON (no Accept): the XML body made the same entity
            assertThat(call("GET", "/chatrooms/hall", null).body()).contains("\"naturalName\":\"Great \\u0026 Hall\"",
                    "\"maxUsers\":40", "\"moderated\":true");

            RawXmppClient c1 = fx.raw(0); // the owner: a moderator, who may speak in this moderated room
            join(c1, hall, "guest");
            r = xml("GET", "/chatrooms/hall/participants", null, x);
            assertThat(r.body()).contains("<participants><participant><jid>" + hall + "/guest</jid><role>");
            r = xml("GET", "/chatrooms/hall/occupants", null, "text/xml, application/json;q=0.5");
            assertThat(r.body()).contains("<occupants><occupant>", "<userAddress>" + c1.jid() + "</userAddress>");
            c1.write("<message to='" + hall + "' type='groupchat'><body>a &lt;b&gt; c</body></message>");
            c1.expect(e -> e.name().equals("message") && "a <b> c".equals(e.childText("body")), "own echo", WAIT);
            r = xml("GET", "/chatrooms/hall/chathistory", null, x);
            assertThat(r.body()).contains("<messages><message><from>" + hall + "/guest</from>",
                    "<body>a &lt;b&gt; c</body>");
            r = xml("GET", "/chatrooms?search=hall", null, x);
            assertThat(r.body()).contains("<chatRooms><chatRoom><roomName>hall</roomName>", "<total>1</total>")
                    .doesNotContain("<chatRooms><chatRooms>");
            r = xml("POST", "/chatrooms/hall/messages", "<message><body>doors close</body></message>", x);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            assertThat(c1.expect(e -> e.name().equals("message") && "doors close".equals(e.childText("body")),
                    "announcement", WAIT).attribute("from")).isEqualTo(hall);
            r = xml("POST", "/chatrooms/hall/invite", "<mucInvitations><reason>come</reason><jidsToInvite>"
                    + "<jid>" + guest + "</jid></jidsToInvite></mucInvitations>", x);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).contains("<invited><jid>" + guest + "</jid></invited>");

            // refusals: malformed XML names the place, a field of the wrong type names the field, errors in XML
            r = xml("PATCH", "/chatrooms/hall", "<chatRoom><description>open</chatRoom>", x);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).startsWith("<?xml").contains("<error><status>400</status>",
                    "malformed XML at line 1, column");
            r = xml("PATCH", "/chatrooms/hall", "<chatRoom><moderated>maybe</moderated></chatRoom>", null);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("moderated must be true or false"); // JSON: no Accept
            r = xml("PATCH", "/chatrooms/hall", "<chatRoom><maxUsers>many</maxUsers></chatRoom>", x);
            assertThat(r.body()).contains("maxUsers must be a whole number");
            r = xml("PATCH", "/chatrooms/hall", "<chatRoom><owners><owner>" + owner + "</owner></owners>"
                    + "<owners/></chatRoom>", x);
            assertThat(r.body()).contains("&lt;owners&gt; appears twice in &lt;chatRoom&gt;");
            r = xml("GET", "/chatrooms/nosuch", null, x);
            assertThat(r.statusCode()).isEqualTo(404);
            assertThat(r.body()).contains("<exception>not-found</exception>");

            // no DTD, so no entity: an external entity (XXE) and an internal one are refused before anything runs
            java.nio.file.Path secret = java.nio.file.Files.createTempFile("xxe", ".txt");
            java.nio.file.Files.writeString(secret, "TOP-SECRET-FILE");
            try {
                r = xml("POST", "/chatrooms", "<?xml version='1.0'?><!DOCTYPE chatRoom [<!ENTITY x SYSTEM '"
                        + secret.toUri() + "'>]><chatRoom><roomName>xxe</roomName><description>&x;</description>"
                        + "<owners><owner>" + owner + "</owner></owners></chatRoom>", x);
                assertThat(r.statusCode()).isEqualTo(400);
                assertThat(r.body()).contains("DOCTYPE").doesNotContain("TOP-SECRET");
            } finally {
                java.nio.file.Files.delete(secret);
            }
            r = xml("POST", "/chatrooms", "<!DOCTYPE a [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;'>]>"
                    + "<chatRoom><roomName>bomb</roomName><description>&b;</description></chatRoom>", x);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(call("GET", "/chatrooms/xxe", null).statusCode()).isEqualTo(404);
            assertThat(call("GET", "/chatrooms/bomb", null).statusCode()).isEqualTo(404);
        }
    }

    private HttpResponse<String> form(String base, String query, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + "/mucscale-rooms.jsp" + query))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void roomsPage_behindDashboardAccessAndCsrf_actionsReachRealClients() throws Exception {
        try (E2eFixture fx = new E2eFixture(2, Map.of("mucscale.metrics.probe-enabled", "false"))) {
            String site = "http://127.0.0.1:" + fx.server.engine().http().port();
            String csrf = fx.server.engine().http().csrfToken();
            String owner = E2eFixture.user(0) + "@" + E2eFixture.DOMAIN;
            HttpResponse<String> r = form(site, "", "csrf=" + csrf + "&action=create&roomName=hall&owners=" + owner);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("Created room hall");
            RawXmppClient c1 = fx.raw(1);
            String hall = "hall@" + E2eFixture.MUC;
            c1.write("<presence to='" + hall + "/visitor1'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            c1.expect(e -> e.name().equals("presence") && hasStatus(e, "110"), "joined", WAIT);
            r = http.send(HttpRequest.newBuilder(URI.create(site + "/mucscale-rooms.jsp?room=hall")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).contains("<td>" + c1.jid() + "</td>", "name=\"csrf\" value=\"" + csrf + "\"");
            assertThat(form(site, "?room=hall", "csrf=wrong&action=occupant&room=hall&nick=visitor1&do=kick")
                    .statusCode()).isEqualTo(403);
            r = form(site, "?room=hall", "csrf=" + csrf + "&action=occupant&room=hall&nick=visitor1&do=kick"
                    + "&reason=flooding");
            assertThat(r.body()).contains("Done: kick visitor1");
            XmlElement kicked = c1.expect(e -> e.name().equals("presence") && hasStatus(e, "307"), "kicked", WAIT);
            assertThat(kicked.child("x", MUC_USER).child("item").childText("reason")).isEqualTo("flooding");
            r = form(site, "?room=hall", "csrf=" + csrf + "&action=destroy&room=hall&reason=done");
            assertThat(r.body()).contains("Room hall destroyed", "0 room(s).");
        }
    }

    @Test
    void servicePage_editsTemplateCreatorsAndAdmins_realClientsGetTheNewRules_badValueSavesNothing() throws Exception {
        try (E2eFixture fx = new E2eFixture(2, Map.of("mucscale.metrics.probe-enabled", "false"))) {
            String site = "http://127.0.0.1:" + fx.server.engine().http().port();
            String csrf = fx.server.engine().http().csrfToken();
            String admin = E2eFixture.user(0) + "@" + E2eFixture.DOMAIN;
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(site + "/mucscale-service.jsp"))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("Service " + E2eFixture.MUC, "<option selected>ANYONE</option>",
                    "name=\"mucscale.muc.default-max-occupants\" value=\"1000\"",
                    "name=\"mucscale.muc.default-public\" value=\"true\" checked",
                    "name=\"csrf\" value=\"" + csrf + "\"");
            String change = "&mucscale.muc.room-creation=ADMINS_ONLY&mucscale.muc.default-max-occupants=7"
                    + "&mucscale.muc.service-admins=" + admin + "&mucscale.muc.default-persistent=true"
                    + "&mucscale.muc.archive-by-default=true"; // default-public left out: unchecked
            assertThat(service(site, "csrf=wrong" + change).statusCode()).isEqualTo(403);
            assertThat(fx.server.engine().currentSettings().get(org.mucscale.engine.muc.MucSettings.ROOM_CREATION).name())
                    .isEqualTo("ANYONE");
            r = service(site, "csrf=" + csrf + change);
            assertThat(r.body()).contains("Saved: mucscale.muc.default-public, mucscale.muc.default-persistent,"
                    + " mucscale.muc.default-max-occupants, mucscale.muc.room-creation, mucscale.muc.service-admins.",
                    "<option selected>ADMINS_ONLY</option>", ">" + admin + "</textarea>");

            // the new rules, as real clients meet them: only a service administrator creates a room now
            RawXmppClient c1 = fx.raw(1);
            c1.write("<presence to='" + E2eFixture.room("mine") + "/me'><x xmlns='http://jabber.org/protocol/muc'/>"
                    + "</presence>");
            XmlElement refused = c1.expect(e -> e.name().equals("presence") && "error".equals(e.attribute("type")),
                    "creation refused", WAIT);
            assertThat(refused.attribute("from")).startsWith(E2eFixture.room("mine"));
            RawXmppClient c0 = fx.raw(0);
            join(c0, E2eFixture.room("staff"), "boss");
            var staff = fx.server.engine().adminApi().rooms().room("staff");
            assertThat(staff.maxUsers()).isEqualTo(7); // the template's maximum
            assertThat(staff.publicRoom()).isFalse();
            assertThat(staff.persistent()).isTrue();

            // a bad value saves nothing, not even the good ones beside it
            r = service(site, "csrf=" + csrf + "&mucscale.muc.room-creation=ANYONE"
                    + "&mucscale.muc.default-max-occupants=0&mucscale.muc.service-admins=" + admin);
            assertThat(r.body()).contains("Not saved:", "mucscale.muc.default-max-occupants");
            assertThat(fx.server.engine().currentSettings().get(org.mucscale.engine.muc.MucSettings.ROOM_CREATION).name())
                    .isEqualTo("ADMINS_ONLY");
            r = service(site, "csrf=" + csrf + "&mucscale.muc.service-admins=not%20a%20jid%40");
            assertThat(r.body()).contains("Not saved:");
            assertThat(fx.server.engine().currentSettings().get(org.mucscale.engine.muc.MucSettings.SERVICE_ADMINS))
                    .isEqualTo(admin);
            // each save and refusal is in the audit trail
            var entries = fx.server.engine().adminApi().audit().newest(10);
            assertThat(entries).extracting(e -> e.path() + " " + e.status()).contains(
                    "service mucscale.muc.default-public,mucscale.muc.default-persistent,"
                            + "mucscale.muc.default-max-occupants,mucscale.muc.room-creation,"
                            + "mucscale.muc.service-admins 200", "service 400");
        }
    }

    private HttpResponse<String> service(String site, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(site + "/mucscale-service.jsp"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
