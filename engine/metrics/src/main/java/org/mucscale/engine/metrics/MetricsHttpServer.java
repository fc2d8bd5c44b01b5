package org.mucscale.engine.metrics;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The standalone runner's metrics HTTP server, on the JDK's {@code com.sun.net.httpserver} (no extra dependency),
 * bound to loopback by default. Routes (the same relative layout the Openfire plugin uses):
 * <ul>
 *   <li>{@code GET /} and {@code GET /mucscale-dashboard.jsp}: the dashboard page</li>
 *   <li>{@code GET /dashboard/<file>}: its static files</li>
 *   <li>{@code GET /mucscale-dashboard-data?range=<seconds>}: the JSON data;
 *       {@code POST /mucscale-dashboard-data} with {@code action} and {@code csrf}: runs a registered action</li>
 *   <li>{@code GET /metrics}: Prometheus text format (404 unless {@code prometheus-enabled})</li>
 * </ul>
 * Access: every request must pass {@link MetricsAccess#standaloneAllowed} (address list, optional token), except that
 * {@code /metrics} may instead pass {@link MetricsAccess#prometheusAllowed}; cross-site browser requests are refused;
 * a POST needs this server's CSRF token (random per start, written into the page); bound to loopback, it answers only
 * requests whose {@code Host} is a loopback name, so a page on another name cannot reach it by DNS rebinding.
 *
 * <p><b>Concurrency.</b> Two daemon threads ({@code mucscale-metrics-http-N}) serve requests; they only read the
 * metrics. {@link #start}/{@link #close} come from the runner's lifecycle thread.
 */
public final class MetricsHttpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsHttpServer.class);
    private static final int MAX_FORM_BYTES = 4096;
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            + "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    private final MucScaleMetrics metrics;
    // Replaced as a whole by updateSettings (dynamic access settings); read by the HTTP threads.
    private volatile MetricsConfig config;
    private volatile MetricsAccess access;
    private final String csrfToken;
    private final Map<String, Runnable> actions = new ConcurrentHashMap<>();
    private final Map<String, Page> pages = new ConcurrentHashMap<>();
    /** Path prefixes served by other parts (the room administration API), each with its own access checks. */
    private final Map<String, com.sun.net.httpserver.HttpHandler> mounts = new ConcurrentHashMap<>();
    private HttpServer server;
    private ExecutorService executor;
    /** Bound to a loopback address: then only loopback Host names are answered (defeats DNS rebinding). */
    private volatile boolean loopbackOnly;

    public MetricsHttpServer(MucScaleMetrics metrics, MetricsConfig config) {
        this.metrics = metrics;
        this.config = config;
        this.access = new MetricsAccess(config);
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        this.csrfToken = HexFormat.of().formatHex(random);
    }

    /**
     * Applies changed dynamic settings (Prometheus on/off, tokens, address lists) to the running server. Bind address
     * and port are not dynamic: they stay as started.
     */
    public void updateSettings(MetricsConfig changed) {
        this.access = new MetricsAccess(changed);
        this.config = changed;
    }

    /** Registers an action the page may POST (e.g. "probe" to send a probe now). Names: letters only. */
    public void onAction(String name, Runnable action) {
        for (int i = 0; i < name.length(); i++) {
            if (!Character.isLetter(name.charAt(i))) {
                throw new IllegalArgumentException("action names are letters only, was '" + name + "'");
            }
        }
        actions.put(name, action);
    }

    /**
     * Serves every path under {@code prefix} (e.g. {@code /plugins/mucscale/v1}) with {@code handler}, which does its
     * own authentication: the dashboard's address list and token do not apply there, the cross-site and loopback
     * Host checks do. Call before {@link #start}.
     */
    public void mount(String prefix, com.sun.net.httpserver.HttpHandler handler) {
        mounts.put(prefix, handler);
    }

    /**
     * An HTML page served behind the dashboard's own access checks (address list, token, cross-site, Host): a GET
     * renders it with the query's parameters and a null form; a POST (form-encoded, at most 16 KiB) renders it with
     * the form, only after this server's CSRF token was checked (403 otherwise).
     */
    @FunctionalInterface
    public interface Page {
        String render(Map<String, String> query, Map<String, String> form, String csrfToken, String remoteAddress);
    }

    /** Serves {@code page} at {@code path} (e.g. {@code /mucscale-rooms.jsp}). Call before {@link #start}. */
    public void page(String path, Page page) {
        pages.put(path, page);
    }

    public synchronized void start() throws IOException {
        if (server != null) {
            return;
        }
        InetAddress bind = InetAddress.getByName(config.httpBindAddress()); // a literal: checked by the setting
        loopbackOnly = bind.isLoopbackAddress();
        server = HttpServer.create(new InetSocketAddress(bind, config.httpPort()), 16);
        AtomicInteger n = new AtomicInteger();
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "mucscale-metrics-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        LOG.info("mucscale metrics HTTP server listening on {}:{}", config.httpBindAddress(), port());
    }

    /** The bound port (useful when configured as 0). */
    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return server.getAddress().getPort();
    }

    /** This server's CSRF token (the page carries it; a POST must send it back). */
    public String csrfToken() {
        return csrfToken;
    }

    @Override
    public synchronized void close() {
        if (server == null) {
            return;
        }
        server.stop(0); // handlers are short; a delay here would only make every stop slow (JDK waits it out)
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server = null;
        executor = null;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            route(ex);
        } catch (RuntimeException e) {
            LOG.warn("metrics HTTP request {} failed", ex.getRequestURI().getRawPath(), e);
            trySend(ex, 500, "text/plain; charset=utf-8", "internal error\n");
        }
    }

    private void route(HttpExchange ex) throws IOException {
        MetricsConfig config = this.config;
        MetricsAccess access = this.access;
        Headers h = ex.getRequestHeaders();
        String path = ex.getRequestURI().getRawPath();
        String method = ex.getRequestMethod();
        InetAddress remote = ex.getRemoteAddress().getAddress();
        String authorization = h.getFirst("Authorization");
        if (MetricsAccess.isCrossSite(h.getFirst("Origin"), h.getFirst("Sec-Fetch-Site"), h.getFirst("Host"))) {
            send(ex, 403, "text/plain; charset=utf-8", "cross-site request refused\n");
            return;
        }
        if (loopbackOnly && !MetricsAccess.isLoopbackHost(h.getFirst("Host"))) {
            send(ex, 403, "text/plain; charset=utf-8", "this server answers to loopback names only\n");
            return;
        }
        for (Map.Entry<String, com.sun.net.httpserver.HttpHandler> m : mounts.entrySet()) {
            if (path.equals(m.getKey()) || path.startsWith(m.getKey() + "/")) {
                m.getValue().handle(ex);
                return;
            }
        }
        boolean client = access.standaloneAllowed(remote, authorization);
        if (path.equals("/metrics")) {
            if (!config.prometheusEnabled()) {
                send(ex, 404, "text/plain; charset=utf-8", "the Prometheus endpoint is disabled "
                        + "(mucscale.metrics.prometheus-enabled)\n");
            } else if (!access.prometheusAllowed(remote, authorization, client)) {
                refuse(ex);
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                send(ex, 405, "text/plain; charset=utf-8", "GET only\n");
            } else {
                StringWriter w = new StringWriter(16 * 1024);
                metrics.writePrometheus(w);
                send(ex, 200, MucScaleMetrics.PROMETHEUS_CONTENT_TYPE, w.toString());
            }
            return;
        }
        if (!client) {
            refuse(ex);
            return;
        }
        Page page = pages.get(path);
        if (page != null) {
            servePage(ex, page, remote);
            return;
        }
        if (path.equals("/") || path.equals("/mucscale-dashboard.jsp")) {
            if (!method.equals("GET")) {
                send(ex, 405, "text/plain; charset=utf-8", "GET only\n");
                return;
            }
            send(ex, 200, "text/html; charset=utf-8", DashboardPage.html(csrfToken, DashboardPage.DEFAULT_DATA_URL));
        } else if (path.equals("/" + DashboardPage.DEFAULT_DATA_URL)) {
            if (method.equals("GET")) {
                int range = parseRange(query(ex).get("range"));
                ex.getResponseHeaders().set("Cache-Control", "no-store");
                send(ex, 200, "application/json; charset=utf-8", metrics.dashboard().json(range));
            } else if (method.equals("POST")) {
                action(ex);
            } else {
                send(ex, 405, "text/plain; charset=utf-8", "GET or POST\n");
            }
        } else if (path.equals("/favicon.ico")) {
            sendBytes(ex, 204, "image/x-icon", new byte[0]); // browsers ask; "none" is an answer, a 404 is a console error
        } else if (path.startsWith("/dashboard/") && method.equals("GET")) {
            String file = path.substring("/dashboard/".length());
            InputStream in = DashboardPage.staticFile(file);
            if (in == null) {
                send(ex, 404, "text/plain; charset=utf-8", "not found\n");
                return;
            }
            byte[] body;
            try (in) {
                body = in.readAllBytes();
            }
            ex.getResponseHeaders().set("Cache-Control", "max-age=300");
            sendBytes(ex, 200, DashboardPage.contentType(file), body);
        } else {
            send(ex, 404, "text/plain; charset=utf-8", "not found\n");
        }
    }

    private void action(HttpExchange ex) throws IOException {
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            send(ex, 415, "text/plain; charset=utf-8", "form data expected\n");
            return;
        }
        byte[] body = readAtMost(ex.getRequestBody(), MAX_FORM_BYTES);
        if (body == null) {
            send(ex, 413, "text/plain; charset=utf-8", "form too large\n");
            return;
        }
        Map<String, String> form = parseForm(new String(body, StandardCharsets.UTF_8));
        if (!MetricsAccess.constantTimeEquals(csrfToken, form.get("csrf"))) {
            send(ex, 403, "text/plain; charset=utf-8", "missing or wrong csrf token\n");
            return;
        }
        Runnable action = actions.get(form.getOrDefault("action", ""));
        if (action == null) {
            send(ex, 400, "text/plain; charset=utf-8", "unknown action\n");
            return;
        }
        action.run();
        send(ex, 200, "application/json; charset=utf-8", "{\"ok\":true}");
    }

    private void servePage(HttpExchange ex, Page page, InetAddress remote) throws IOException {
        String method = ex.getRequestMethod();
        Map<String, String> form = null;
        if (method.equals("POST")) {
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            if (type == null || !type.toLowerCase(java.util.Locale.ROOT)
                    .startsWith("application/x-www-form-urlencoded")) {
                send(ex, 415, "text/plain; charset=utf-8", "form data expected\n");
                return;
            }
            byte[] body = readAtMost(ex.getRequestBody(), 4 * MAX_FORM_BYTES);
            if (body == null) {
                send(ex, 413, "text/plain; charset=utf-8", "form too large\n");
                return;
            }
            form = parseForm(new String(body, StandardCharsets.UTF_8));
            if (!MetricsAccess.constantTimeEquals(csrfToken, form.get("csrf"))) {
                send(ex, 403, "text/plain; charset=utf-8", "missing or wrong csrf token\n");
                return;
            }
        } else if (!method.equals("GET")) {
            send(ex, 405, "text/plain; charset=utf-8", "GET or POST\n");
            return;
        }
        String html = page.render(query(ex), form, csrfToken, remote == null ? "?" : remote.getHostAddress());
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        // not no-referrer: with it a browser sends "Origin: null" with the page's form posts, which are then refused
        // as cross-site; same-origin keeps the real origin on our own requests and tells other sites nothing
        ex.getResponseHeaders().set("Referrer-Policy", "same-origin");
        send(ex, 200, "text/html; charset=utf-8", html);
    }

    private void refuse(HttpExchange ex) throws IOException {
        if (!this.config.httpToken().isEmpty()) {
            ex.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"mucscale metrics\", charset=\"UTF-8\"");
            send(ex, 401, "text/plain; charset=utf-8", "authentication required\n");
        } else {
            send(ex, 403, "text/plain; charset=utf-8", "forbidden\n");
        }
    }

    static int parseRange(String text) {
        if (text == null) {
            return 900;
        }
        try {
            return Math.max(60, Math.min(3600, Integer.parseInt(text)));
        } catch (NumberFormatException e) {
            return 900;
        }
    }

    private static Map<String, String> query(HttpExchange ex) {
        String raw = ex.getRequestURI().getRawQuery();
        return raw == null ? Map.of() : parseForm(raw);
    }

    static Map<String, String> parseForm(String raw) {
        Map<String, String> out = new HashMap<>();
        for (String pair : raw.split("&", 32)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            try {
                out.putIfAbsent(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                // a malformed %-escape: the pair is ignored, and the request fails on what is missing
            }
        }
        return out;
    }

    private static byte[] readAtMost(InputStream in, int max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1024];
        int n;
        while ((n = in.read(buf)) > 0) {
            if (out.size() + n > max) {
                return null;
            }
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    private static void send(HttpExchange ex, int status, String contentType, String body) throws IOException {
        sendBytes(ex, status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void sendBytes(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
        Headers out = ex.getResponseHeaders();
        out.set("Content-Type", contentType);
        out.set("X-Content-Type-Options", "nosniff");
        out.set("X-Frame-Options", "DENY");
        if (!out.containsKey("Referrer-Policy")) {
            out.set("Referrer-Policy", "no-referrer");
        }
        out.set("Content-Security-Policy", CSP);
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(status, head ? -1 : (body.length == 0 ? -1 : body.length));
        if (!head && body.length > 0) {
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        }
    }

    private static void trySend(HttpExchange ex, int status, String contentType, String body) {
        try {
            send(ex, status, contentType, body);
        } catch (IOException | RuntimeException ignored) {
            // headers may already be out; the exchange is closed by the caller
        }
    }

}
