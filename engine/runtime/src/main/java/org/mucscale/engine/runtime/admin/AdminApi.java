package org.mucscale.engine.runtime.admin;

import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.mucscale.engine.config.Settings;
import org.mucscale.engine.metrics.AddressList;
import org.mucscale.engine.metrics.MetricsAccess;
import org.mucscale.engine.muc.admin.AdminException;
import org.mucscale.engine.muc.admin.Page;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.muc.admin.RoomDetails;
import org.mucscale.engine.muc.admin.RoomSettings;
import org.mucscale.engine.muc.admin.RoomSummary;
import org.mucscale.engine.muc.admin.UserRoom;

/**
 * The room-administration HTTP API at {@code /plugins/mucscale/v1/}, host-independent: the standalone HTTP server
 * and the Openfire servlet turn their requests into a {@link Request} and write back the {@link Response}. Paths,
 * parameters and entities follow Openfire's REST API plugin's chat room endpoints, so a backend written for it works
 * by changing the base URL; see docs/admin.md for every endpoint.
 *
 * <p>Access, in this order, each refusal saying why: the API must be enabled ({@code mucscale.admin.api-enabled},
 * else 403); the caller's address must be on {@code mucscale.admin.api-allowed-addresses} when that is set (403);
 * the caller must authenticate, by the shared secret ({@code Authorization: <secret>} or {@code Bearer <secret>},
 * compared in constant time, never echoed or logged) or, inside Openfire, as an Openfire administrator by HTTP Basic
 * (the host's {@link HostLogin} checks the pair, only after the checks above, so a disabled API, a refused address or
 * a caller over the rate never reaches Openfire's password check); no credentials or wrong ones are 401; a user who
 * authenticated but is no administrator is 403. Bodies are read up to {@code mucscale.admin.api-max-body-bytes} (413 beyond). Every change (any method but
 * GET) is recorded in the {@link AuditTrail} with its result.
 *
 * <p>In a cluster ({@link AdminForwarding}) a call for a room another node serves is run by that node and answered
 * once it ran there; a listing asks every member. This node, the one the caller reached, checks access and limits and
 * writes the audit row, once per call.
 *
 * <p>Thread-safe: settings are replaced as a whole ({@link #updateSettings}); each request blocks its HTTP thread
 * until the room's thread (here or on the room's node) has answered.
 */
public final class AdminApi {
    public static final String PREFIX = "/plugins/mucscale/v1";
    public static final String JSON = "application/json; charset=utf-8";

    /**
     * One HTTP request. {@code body} is null when there was none; {@code bodyTooLarge}: the host stopped reading at
     * {@link #maxBodyBytes()}. {@code hostLogin}: checks HTTP Basic credentials against the host's administrators
     * (null: the host has none, as standalone).
     */
    public record Request(String method, String path, String rawQuery, String authorization, String contentType,
                          InetAddress remote, byte[] body, boolean bodyTooLarge, HostLogin hostLogin, String accept) {
        /** Without an {@code Accept} header: answered in JSON. */
        public Request(String method, String path, String rawQuery, String authorization, String contentType,
                       InetAddress remote, byte[] body, boolean bodyTooLarge, HostLogin hostLogin) {
            this(method, path, rawQuery, authorization, contentType, remote, body, bodyTooLarge, hostLogin, null);
        }
    }

    /** How the host's check of a user name and password came out. */
    public enum LoginOutcome { ADMIN, NOT_ADMIN, FAILED }

    /** The host's administrator accounts (inside Openfire: its auth provider and admin list). */
    @FunctionalInterface
    public interface HostLogin {
        /** Checks one HTTP Basic pair from {@code remote}; never throws (a failing back end is FAILED). */
        LoginOutcome check(String user, String password, InetAddress remote);
    }

    /** A request body read up to a limit: {@code bytes} null when empty or too large. */
    public record Body(byte[] bytes, boolean tooLarge) {
    }

    /**
     * Reads a body for {@link Request}: not at all when {@code contentLength} already says it is over {@code max},
     * else up to {@code max + 1} bytes (so a body without a length cannot make the host buffer more).
     */
    public static Body readBody(java.io.InputStream in, String contentLength, int max) throws java.io.IOException {
        if (contentLength != null && contentLength.trim().matches("\\d{1,18}")
                && Long.parseLong(contentLength.trim()) > max) {
            return new Body(null, true);
        }
        byte[] read = in.readNBytes(max + 1);
        if (read.length > max) {
            return new Body(null, true);
        }
        return new Body(read.length == 0 ? null : read, false);
    }

    /** The answer: status, content type, body and extra headers (WWW-Authenticate, Retry-After, Location). */
    public record Response(int status, String contentType, String body, Map<String, String> headers) {
    }

    /** The OpenAPI 3 description of this API, a resource next to this class. */
    static final String OPENAPI = openApi();

    private static String openApi() {
        try (java.io.InputStream in = AdminApi.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("openapi.json could not be read", e);
        }
    }

    private final RoomAdmin admin;
    private final AuditTrail audit;
    private volatile Access access;

    private record Access(boolean enabled, String secret, AddressList allowed, int maxBodyBytes,
                          int requestsPerSecond) {
    }

    /** Requests per client address (token buckets). */
    private final AddressRate rate = new AddressRate();
    /** Calls for rooms other cluster nodes own go there; null alone (set once, when the engine is clustered). */
    private volatile AdminForwarding forwarding;

    public AdminApi(RoomAdmin admin, Settings settings) {
        this(admin, settings, null);
    }

    /** {@code auditLog}: the database table of the audit trail, or null to keep it in memory only. */
    public AdminApi(RoomAdmin admin, Settings settings, org.mucscale.engine.store.AdminAuditLog auditLog) {
        this.admin = admin;
        this.audit = new AuditTrail(auditLog);
        updateSettings(settings);
    }

    /** Applies the {@code mucscale.admin.api-*} settings of a new snapshot (all dynamic). */
    public void updateSettings(Settings s) {
        access = new Access(s.get(AdminApiSettings.API_ENABLED), s.get(AdminApiSettings.API_SECRET),
                AddressList.parse(s.get(AdminApiSettings.API_ALLOWED_ADDRESSES)),
                s.get(AdminApiSettings.API_MAX_BODY_BYTES), s.get(AdminApiSettings.API_REQUESTS_PER_SECOND));
    }

    public int maxBodyBytes() {
        return access.maxBodyBytes();
    }

    public AuditTrail audit() {
        return audit;
    }

    public RoomAdmin rooms() {
        return admin;
    }

    /** Answers one request, in XML when its Accept asks for it ({@link AdminXml}); never throws. */
    public Response handle(Request r) {
        Response res = answer(r);
        return AdminXml.wantsXml(r.accept()) && !r.path().endsWith("/openapi.json") ? AdminXml.toXml(res) : res;
    }

    private Response answer(Request r) {
        Access a = access;
        String who;
        if (!a.enabled()) {
            return error(403, "disabled", "the room administration API is off (mucscale.admin.api-enabled=false)");
        }
        if (!a.allowed().isEmpty() && (r.remote() == null || !a.allowed().contains(r.remote()))) {
            return error(403, "address-not-allowed", "this client address is not in "
                    + "mucscale.admin.api-allowed-addresses");
        }
        if (!rate.within(r.remote(), a.requestsPerSecond())) {
            Response res = error(429, "too-many-requests", "more than " + a.requestsPerSecond()
                    + " requests per second from this address (mucscale.admin.api-requests-per-second)");
            res.headers().put("Retry-After", "1");
            return res;
        }
        String presented = Credentials.presentedSecret(r.authorization());
        String[] basic = r.hostLogin() == null ? null : Credentials.basicPair(r.authorization());
        LoginOutcome login = LoginOutcome.FAILED;
        if (!a.secret().isEmpty() && presented != null && MetricsAccess.constantTimeEquals(a.secret(), presented)) {
            who = "shared-secret";
        } else if (basic != null && (login = r.hostLogin().check(basic[0], basic[1], r.remote()))
                == LoginOutcome.ADMIN) {
            who = "admin:" + basic[0];
        } else if (login == LoginOutcome.NOT_ADMIN) {
            return error(403, "not-an-administrator", "the authenticated user is not an Openfire administrator");
        } else if (presented == null) {
            Response res = error(401, "unauthenticated", a.secret().isEmpty()
                    ? "no credentials; this API accepts administrator credentials only (no shared secret is set)"
                    : "no credentials; send the shared secret as 'Authorization: <secret>'");
            res.headers().put("WWW-Authenticate", "Basic realm=\"mucscale\"");
            return res;
        } else {
            Response res = error(401, "wrong-credentials", "the credentials are not valid");
            res.headers().put("WWW-Authenticate", "Basic realm=\"mucscale\"");
            return res;
        }
        boolean change = !r.method().equals("GET") && !r.method().equals("HEAD");
        Response res = null;
        AdminForwarding f = forwarding;
        if (r.bodyTooLarge()) {
            res = error(413, "body-too-large", "the request body is larger than " + a.maxBodyBytes()
                    + " bytes (mucscale.admin.api-max-body-bytes)");
        } else {
            Request json = null;
            try {
                json = AdminXml.asJson(r); // XML is translated here, at the edge: all behind it sees JSON
            } catch (IllegalArgumentException e) {
                res = error(400, "bad-request", e.getMessage());
            }
            if (json != null) {
                res = f == null ? routeHere(json, who) : forwarded(f, json, who);
            }
        }
        // one row per call, written here, the node that took it: only it knows the caller's address and the answer
        // the caller got (also when the room's owner left before answering); every node reads the same table
        if (change) {
            audit.add(new AuditTrail.Entry(Instant.now(), who, AuditTrail.address(r.remote()), r.method(), r.path(),
                    res.status(), res.status() >= 400 ? messageOf(res) : null));
        }
        return res;
    }

    /**
     * A call another cluster node took and authenticated ({@code who}), run here as this node holds the room: no
     * access checks (the cluster link is trusted as it is for stanzas), no forwarding, no audit (the entry node's).
     */
    Response answerForwarded(String who, String method, String path, String rawQuery, String contentType,
                             byte[] body) {
        return routeHere(new Request(method, path, rawQuery, null, contentType, null,
                body == null || body.length == 0 ? null : body, false, null), who);
    }

    /** Sends calls for rooms other nodes own to them (see {@link AdminForwarding}); set once, when clustered. */
    public void forwardWith(AdminForwarding f) {
        this.forwarding = f;
    }

    private static Response forwarded(AdminForwarding f, Request r, String who) {
        try {
            return f.route(r, who);
        } catch (RuntimeException e) {
            return error(500, "internal-error", "the request could not be completed: " + e.getClass().getSimpleName());
        }
    }

    /** Runs {@code r} on this node's rooms; never throws. */
    Response routeHere(Request r, String who) {
        Response res;
        try {
            res = route(r, who);
        } catch (AdminException e) {
            res = error(e.problem().httpStatus, e.problem().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    e.getMessage());
            if (e.problem().httpStatus == 503) {
                res.headers().put("Retry-After", "2");
            }
        } catch (IllegalArgumentException e) {
            res = error(400, "bad-request", e.getMessage());
        } catch (RuntimeException e) {
            res = error(500, "internal-error", "the request could not be completed: " + e.getClass().getSimpleName());
        }
        return res;
    }

    private static String messageOf(Response res) {
        Object m = ((Map<?, ?>) JsonText.parse(res.body())).get("message");
        return m == null ? null : m.toString();
    }

    // ------------------------------------------------------------------------------------------------ routing

    private Response route(Request r, String who) {
        List<String> p = segments(r.path());
        Map<String, String> q = query(r.rawQuery());
        String service = q.get("servicename");
        if (service != null && !service.isEmpty() && !service.equalsIgnoreCase(admin.serviceDomain())
                && !service.equalsIgnoreCase(admin.serviceDomain().split("\\.", 2)[0])) {
            return error(404, "no-such-service", "there is no group chat service '" + service + "' here; this one is "
                    + admin.serviceDomain().split("\\.", 2)[0]);
        }
        String m = r.method();
        if (p.size() == 3 && p.get(0).equals("users") && p.get(2).equals("chatrooms") && m.equals("GET")) {
            List<Object> rooms = new ArrayList<>();
            for (UserRoom u : admin.roomsOf(p.get(1))) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("roomName", u.roomName());
                row.put("affiliation", u.affiliation());
                row.put("nicks", u.nicks());
                rooms.add(row);
            }
            return ok(200, Map.of("chatRooms", rooms));
        }
        if (p.size() == 1 && p.get(0).equals("openapi.json") && m.equals("GET")) {
            return new Response(200, JSON, OPENAPI, new LinkedHashMap<>());
        }
        if (p.size() == 1 && p.get(0).equals("audit") && m.equals("GET")) {
            List<Object> out = new ArrayList<>();
            for (AuditTrail.Entry e : audit.newest(intParam(q, "limit", 100, 1, AuditTrail.CAPACITY))) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("at", e.at().toString());
                row.put("who", e.who());
                row.put("from", e.from());
                row.put("method", e.method());
                row.put("path", e.path());
                row.put("status", e.status());
                row.put("message", e.message());
                out.add(row);
            }
            return ok(200, Map.of("entries", out));
        }
        if (p.isEmpty() || !p.get(0).equals("chatrooms")) {
            return error(404, "not-found", "no such endpoint; see docs/admin.md");
        }
        if (p.size() == 1) {
            return switch (m) {
                case "GET" -> list(q);
                case "POST" -> create(r, q);
                case "DELETE" -> destroyUnused(q);
                default -> methodNotAllowed("GET, POST, DELETE");
            };
        }
        if (p.size() == 2 && p.get(1).equals("bulk")) {
            return m.equals("POST") ? bulk(r, q) : methodNotAllowed("POST");
        }
        String room = p.get(1);
        if (p.size() == 2) {
            return switch (m) {
                case "GET" -> ok(200, RoomJson.entity(admin.room(room)));
                case "PUT" -> ok(200, RoomJson.entity(admin.update(room, body(r, room), true)));
                case "PATCH" -> ok(200, RoomJson.entity(admin.update(room, body(r, room), false)));
                case "DELETE" -> {
                    admin.destroy(room, q.get("reason"), q.get("alternateVenue"));
                    yield ok(200, Map.of("roomName", room.toLowerCase(Locale.ROOT), "destroyed", true));
                }
                default -> methodNotAllowed("GET, PUT, PATCH, DELETE");
            };
        }
        return RoomResources.route(admin, r, p, q, room);
    }

    private Response list(Map<String, String> q) {
        if (q.containsKey("unusedDays")) {
            int days = intParam(q, "unusedDays", 0, 0, 36_500);
            return ok(200, Map.of("chatRooms", admin.unused(Duration.ofDays(days), System.currentTimeMillis())));
        }
        Page<RoomSummary> page = admin.list(q.get("search"), q.get("after"),
                intParam(q, "limit", RoomAdmin.MAX_PAGE, 1, RoomAdmin.MAX_PAGE));
        List<Object> rooms = new ArrayList<>();
        for (RoomSummary s : page.items()) {
            rooms.add(RoomJson.summary(s));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("chatRooms", rooms);
        out.put("total", page.total());
        out.put("next", page.next());
        return ok(200, out);
    }

    private Response destroyUnused(Map<String, String> q) {
        if (!q.containsKey("unusedDays")) {
            return error(400, "bad-request", "DELETE /chatrooms needs unusedDays=N (rooms empty and silent N days)");
        }
        int days = intParam(q, "unusedDays", 0, 0, 36_500);
        return ok(200, Map.of("destroyed", admin.destroyUnused(Duration.ofDays(days), System.currentTimeMillis(),
                q.get("reason"))));
    }

    private Response create(Request r, Map<String, String> q) {
        String[] name = new String[1];
        RoomSettings s = RoomJson.settings(object(r), name);
        RoomDetails d = admin.create(name[0], s, "true".equals(q.get("upsert")));
        Response res = ok(201, RoomJson.entity(d));
        res.headers().put("Location", PREFIX + "/chatrooms/" + d.roomName());
        return res;
    }

    /** {@code {"chatRooms":[entity...]}}: each room created (or upserted) on its own, with a result per room. */
    private Response bulk(Request r, Map<String, String> q) {
        Object rooms = object(r).get("chatRooms");
        if (!(rooms instanceof List<?> list)) {
            return error(400, "bad-request", "chatRooms must be a list of chat room entities");
        }
        boolean upsert = "true".equals(q.get("upsert"));
        List<Object> results = new ArrayList<>();
        for (Object o : list) {
            Map<String, Object> row = new LinkedHashMap<>();
            try {
                if (!(o instanceof Map<?, ?>)) {
                    throw new AdminException(AdminException.Problem.BAD_REQUEST, "each item must be an object");
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> entity = (Map<String, Object>) o;
                String[] name = new String[1];
                RoomSettings s = RoomJson.settings(entity, name);
                row.put("roomName", name[0]);
                admin.create(name[0], s, upsert);
                row.put("status", 201);
            } catch (AdminException e) {
                row.put("status", e.problem().httpStatus);
                row.put("message", e.getMessage());
            }
            results.add(row);
        }
        return ok(200, Map.of("results", results));
    }

    /** The entity of a PUT/PATCH; a roomName in it must name the room of the path. */
    private RoomSettings body(Request r, String room) {
        String[] name = new String[1];
        RoomSettings s = RoomJson.settings(object(r), name);
        if (name[0] != null && !name[0].equalsIgnoreCase(room)) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "roomName '" + name[0]
                    + "' in the body does not match the room '" + room + "' of the path");
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Request r) {
        if (r.body() == null || r.body().length == 0) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "a JSON object body is required");
        }
        String type = r.contentType() == null ? "" : r.contentType().toLowerCase(Locale.ROOT);
        if (!type.isEmpty() && !type.startsWith("application/json")) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    "Content-Type must be application/json or application/xml, was " + r.contentType());
        }
        Object v = JsonText.parse(new String(r.body(), StandardCharsets.UTF_8));
        if (!(v instanceof Map<?, ?>)) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "the body must be a JSON object");
        }
        return (Map<String, Object>) v;
    }

    private static int intParam(Map<String, String> q, String name, int absent, int min, int max) {
        String v = q.get(name);
        if (v == null || v.isEmpty()) {
            return absent;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // refused below
        }
        throw new AdminException(AdminException.Problem.BAD_REQUEST,
                name + " must be a whole number between " + min + " and " + max + ", was '" + v + "'");
    }

    static List<String> segments(String path) {
        String rest = path.startsWith(PREFIX) ? path.substring(PREFIX.length()) : path;
        List<String> out = new ArrayList<>();
        for (String s : rest.split("/")) {
            if (!s.isEmpty()) {
                out.add(URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.putIfAbsent(k, v);
        }
        return out;
    }

    static Response ok(int status, Object body) {
        return new Response(status, JSON, JsonText.write(body), new LinkedHashMap<>());
    }

    static Response methodNotAllowed(String allowed) {
        Response r = error(405, "method-not-allowed", "allowed here: " + allowed);
        r.headers().put("Allow", allowed);
        return r;
    }

    static Response error(int status, String error, String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", status);
        m.put("error", error);
        m.put("message", message);
        return new Response(status, JSON, JsonText.write(m), new LinkedHashMap<>());
    }
}
