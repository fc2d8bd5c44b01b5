package org.mucscale.engine.runtime.admin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.mucscale.engine.cluster.AdminCalls;
import org.mucscale.engine.cluster.ClusterNode;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API in a cluster (issue 37): a call for one room is run by the node that serves the room and answered
 * once it ran there; a call about every room (list, search, unused rooms, a user's rooms) is asked of every member
 * and their answers merged. Calls travel as {@link AdminCalls} (ADMIN_CALL / ADMIN_ANSWER); the entry node has
 * authenticated the caller, checked its limits, and alone writes the audit row ({@link AdminApi#handle}).
 *
 * <p>Invariants:
 * <ol>
 *   <li>A change is applied at most once. It is sent again only when the answer says nothing was done (the node it
 *       went to did not serve the room: 503 {@code elsewhere}, or it was never sent), at most once more, to the
 *       room's owner then. A change whose node left, or did not answer in time, is answered 503 {@code
 *       outcome-unknown} and not sent again: it may have been applied there. A read is safe to send again either
 *       way.</li>
 *   <li>A read answers what the serving node holds: it runs there, on the room's thread, as a change does.</li>
 *   <li>A cluster listing holds every room a member served when asked (a room moving between two members may show
 *       on both or, for a moment, on neither: shown once, by name); if any member cannot answer, the listing is that
 *       member's refusal (503), never a silent part.</li>
 * </ol>
 *
 * <p>Stateless and thread-safe: each call runs on the HTTP thread that took it, blocked while the other node works;
 * calls from other nodes run on {@link AdminCalls}' threads.
 */
public final class AdminForwarding implements AdminCalls.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(AdminForwarding.class);
    /** How long a call answered "not served here" waits for this node's view to name another owner. */
    private static final long NEW_OWNER_WAIT_MS = 1_000;

    private final AdminApi api;
    private final ClusterNode node;
    private final AdminCalls calls;

    /** Wires {@code api} to {@code node}: its calls for other nodes' rooms go there, and theirs come here. */
    public static void install(AdminApi api, ClusterNode node) {
        AdminForwarding f = new AdminForwarding(api, node);
        node.adminCalls().serve(f);
        api.forwardWith(f);
    }

    private AdminForwarding(AdminApi api, ClusterNode node) {
        this.api = api;
        this.node = node;
        this.calls = node.adminCalls();
    }

    /** A call another node sent: run here, on this node's rooms only. */
    @Override
    public AdminCalls.Answer answer(String fromNode, AdminCalls.Call c) {
        AdminApi.Response r = api.answerForwarded(c.who(), c.method(), c.path(), c.query(), c.contentType(), c.body());
        return new AdminCalls.Answer(r.status(), r.contentType(), r.body(), r.headers());
    }

    /** Routes an authenticated call: here, to the room's node, or to every member. Never throws. */
    AdminApi.Response route(AdminApi.Request r, String who) {
        if (node.members().size() < 2) {
            return api.routeHere(r, who);
        }
        List<String> p = AdminApi.segments(r.path());
        String m = r.method();
        if (p.size() == 3 && p.get(0).equals("users") && p.get(2).equals("chatrooms") && m.equals("GET")) {
            return everywhere(r, who, "chatRooms");
        }
        if (p.isEmpty() || !p.get(0).equals("chatrooms")) {
            return api.routeHere(r, who); // the audit trail, the OpenAPI document: the same on every node
        }
        if (p.size() == 1) {
            return switch (m) {
                case "GET" -> everywhere(r, who, "chatRooms");
                case "DELETE" -> everywhere(r, who, "destroyed");
                case "POST" -> atOwner(nameIn(r.body()), r, who);
                default -> api.routeHere(r, who);
            };
        }
        if (p.size() == 2 && p.get(1).equals("bulk") && m.equals("POST")) {
            return bulk(r, who);
        }
        return atOwner(p.get(1), r, who);
    }

    // ------------------------------------------------------------------------------------------------ one room

    /** Runs {@code r} where {@code roomName} is served, trying its next owner once if that node did not serve it. */
    private AdminApi.Response atOwner(String roomName, AdminApi.Request r, String who) {
        Jid room = roomName == null ? null : Jid.tryParse(roomName.trim().toLowerCase(Locale.ROOT) + "@"
                + api.rooms().serviceDomain());
        if (room == null) {
            return api.routeHere(r, who); // refused here as it would be anywhere (400)
        }
        String owner = node.ownerOf(room);
        AdminApi.Response res = runAt(owner, r, who);
        if (!nothingDone(res) && !(isRead(r) && res.status() == 503)) {
            return res;
        }
        // nothing was done (or it was a read): once more, at the owner this node's view names by then
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(NEW_OWNER_WAIT_MS);
        String next = node.ownerOf(room);
        while (next.equals(owner) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return res;
            }
            next = node.ownerOf(room);
        }
        LOG.info("admin call {} {} for room {}: node {} did not serve it ({}); sent once more, to {}", r.method(),
                r.path(), room.local(), owner, res.status(), next);
        return runAt(next, r, who);
    }

    private AdminApi.Response runAt(String target, AdminApi.Request r, String who) {
        if (target.equals(node.localNode())) {
            return api.routeHere(r, who);
        }
        try {
            AdminCalls.Answer a = calls.call(target, new AdminCalls.Call(who, r.method(), r.path(), r.rawQuery(),
                    r.contentType(), r.body()));
            return new AdminApi.Response(a.status(), a.contentType() == null ? AdminApi.JSON : a.contentType(),
                    a.body(), new LinkedHashMap<>(a.headers()));
        } catch (AdminCalls.Unanswered u) {
            AdminApi.Response res;
            if (u.outcomeUnknown()) {
                res = AdminApi.error(503, "outcome-unknown", u.getMessage() + "; read the room to see whether it was "
                        + "applied before trying again");
            } else if (u.failure() == AdminCalls.Failure.NOT_A_MEMBER) {
                res = AdminApi.error(503, "elsewhere", u.getMessage() + "; nothing was changed");
            } else {
                res = AdminApi.error(503, "unavailable", u.getMessage() + "; nothing was changed");
            }
            res.headers().put("Retry-After", "2");
            return res;
        }
    }

    /** 503 {@code elsewhere}: the node did not serve the room (or the call never left), so nothing changed. */
    private static boolean nothingDone(AdminApi.Response res) {
        return res.status() == 503 && res.body() != null && res.body().contains("\"error\":\"elsewhere\"");
    }

    private static boolean isRead(AdminApi.Request r) {
        return r.method().equals("GET") || r.method().equals("HEAD");
    }

    /** The room name of a create's body; null when it has none or is not JSON (refused where it runs). */
    private static String nameIn(byte[] body) {
        if (body == null) {
            return null;
        }
        try {
            Object v = JsonText.parse(new String(body, StandardCharsets.UTF_8));
            return v instanceof Map<?, ?> map && map.get("roomName") instanceof String s ? s : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------------ all rooms

    /**
     * Asks every member, each for its own rooms, and merges the lists under {@code key} by room name: a page keeps its
     * limit and keyset ({@code total} is the sum, {@code next} the last name shown when any member has more).
     */
    private AdminApi.Response everywhere(AdminApi.Request r, String who, String key) {
        List<Map<?, ?>> answers = new ArrayList<>();
        for (String member : node.members()) {
            AdminApi.Response res = runAt(member, r, who);
            if (res.status() != 200) {
                return res; // the first refusal (the same everywhere: 400, 404) or a member that cannot answer
            }
            answers.add((Map<?, ?>) JsonText.parse(res.body()));
        }
        TreeMap<String, Object> byName = new TreeMap<>();
        long total = 0;
        boolean more = false;
        for (Map<?, ?> a : answers) {
            if (a.get(key) instanceof List<?> items) {
                for (Object item : items) {
                    String name = item instanceof Map<?, ?> row ? String.valueOf(row.get("roomName"))
                            : String.valueOf(item);
                    byName.putIfAbsent(name, item);
                }
            }
            if (a.get("total") instanceof Number n) {
                total += n.longValue();
            }
            more |= a.get("next") != null;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        boolean page = answers.stream().anyMatch(a -> a.containsKey("total"));
        if (!page) {
            out.put(key, new ArrayList<>(byName.values()));
            return new AdminApi.Response(200, AdminApi.JSON, JsonText.write(out), new LinkedHashMap<>());
        }
        int limit = limitOf(r);
        List<Object> shown = new ArrayList<>();
        String last = null;
        for (Map.Entry<String, Object> e : byName.entrySet()) {
            if (shown.size() == limit) {
                more = true;
                break;
            }
            shown.add(e.getValue());
            last = e.getKey();
        }
        out.put(key, shown);
        out.put("total", total);
        out.put("next", more ? last : null);
        return new AdminApi.Response(200, AdminApi.JSON, JsonText.write(out), new LinkedHashMap<>());
    }

    /** The page size asked for (the members refused a bad one already). */
    private static int limitOf(AdminApi.Request r) {
        String v = AdminApi.query(r.rawQuery()).get("limit");
        try {
            return v == null || v.isEmpty() ? RoomAdmin.MAX_PAGE : Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            return RoomAdmin.MAX_PAGE;
        }
    }

    /**
     * A bulk creation: the rooms grouped by the node that owns each, one bulk call per node, the results put back in
     * the order given. A room refused 503 there is left so (creation is create-only, so the caller may retry it).
     */
    private AdminApi.Response bulk(AdminApi.Request r, String who) {
        Object parsed;
        try {
            parsed = JsonText.parse(new String(r.body() == null ? new byte[0] : r.body(), StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return api.routeHere(r, who); // refused here as anywhere (400)
        }
        if (!(parsed instanceof Map<?, ?> body) || !(body.get("chatRooms") instanceof List<?> items)) {
            return api.routeHere(r, who);
        }
        Map<String, List<Integer>> byNode = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Object item = items.get(i);
            String name = item instanceof Map<?, ?> e && e.get("roomName") instanceof String s ? s : null;
            Jid room = name == null ? null : Jid.tryParse(name.trim().toLowerCase(Locale.ROOT) + "@"
                    + api.rooms().serviceDomain());
            String owner = room == null ? node.localNode() : node.ownerOf(room);
            byNode.computeIfAbsent(owner, k -> new ArrayList<>()).add(i);
        }
        Object[] results = new Object[items.size()];
        for (Map.Entry<String, List<Integer>> e : byNode.entrySet()) {
            List<Object> part = new ArrayList<>();
            for (int i : e.getValue()) {
                part.add(items.get(i));
            }
            byte[] partBody = JsonText.write(Map.of("chatRooms", part)).getBytes(StandardCharsets.UTF_8);
            AdminApi.Response res = runAt(e.getKey(), new AdminApi.Request(r.method(), r.path(), r.rawQuery(), null,
                    "application/json", r.remote(), partBody, false, null), who);
            List<?> rows = res.status() == 200 && JsonText.parse(res.body()) instanceof Map<?, ?> a
                    && a.get("results") instanceof List<?> l && l.size() == part.size() ? l : null;
            for (int k = 0; k < e.getValue().size(); k++) {
                results[e.getValue().get(k)] = rows != null ? rows.get(k) : failedRow(items.get(e.getValue().get(k)),
                        res);
            }
        }
        return new AdminApi.Response(200, AdminApi.JSON, JsonText.write(Map.of("results", List.of(results))),
                new LinkedHashMap<>());
    }

    private static Object failedRow(Object item, AdminApi.Response res) {
        Map<String, Object> row = new LinkedHashMap<>();
        if (item instanceof Map<?, ?> e && e.get("roomName") instanceof String s) {
            row.put("roomName", s);
        }
        row.put("status", res.status());
        Object m = JsonText.parse(res.body()) instanceof Map<?, ?> a ? a.get("message") : null;
        row.put("message", m == null ? null : m.toString());
        return row;
    }
}
