package org.mucscale.openfire;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.mucscale.engine.runtime.admin.AdminApi;

/**
 * Serves the room-administration HTTP API ({@link AdminApi}, the same one the standalone server serves) at
 * {@code /plugins/mucscale/v1/} inside Openfire's admin console web server.
 *
 * <p>Why a filter and not a servlet: Openfire's {@code PluginServlet} checks a CSRF token on every non-GET request
 * to a plugin that enables CSRF protection, as mucscale does for its admin pages, and a backend has no such token.
 * Openfire runs a plugin's web.xml filters ({@code PluginFilter}) after its login check and before
 * {@code PluginServlet}; this filter answers every request under its path itself and never passes it on, so the
 * admin pages keep their CSRF check and the API is not subject to it. The API does not accept the admin console's
 * session cookie (only an {@code Authorization} header), so a browser cannot be tricked into calling it.
 * The login check itself is skipped for this path by {@link AdminApiExclusion}; the API authenticates by the shared
 * secret or by Openfire admin credentials ({@link OpenfireAdminLogin}).
 *
 * <p>Runs on Jetty's request threads; holds no state of its own.
 */
public final class AdminApiFilter implements Filter {

    private static final AdminApi.HostLogin LOGIN = new OpenfireAdminLogin();

    @Override
    public void init(FilterConfig config) {
        // nothing to set up: the API comes from the running plugin's context on each request
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        MucScaleContext context = MucScaleContext.current();
        AdminApi api = context == null || context.engine() == null ? null : context.engine().adminApi();
        if (api == null) {
            write(response, 503, AdminApi.JSON, "{\"status\":503,\"error\":\"not-running\","
                    + "\"message\":\"MUC Scale is not running\"}", Map.of("Retry-After", "5"), false);
            return;
        }
        AdminApi.Body body;
        try (InputStream in = request.getInputStream()) {
            body = AdminApi.readBody(in, request.getHeader("Content-Length"), api.maxBodyBytes());
        }
        AdminApi.Response out = api.handle(new AdminApi.Request(request.getMethod(), request.getRequestURI(),
                request.getQueryString(), request.getHeader("Authorization"), request.getContentType(),
                address(request.getRemoteAddr()), body.bytes(), body.tooLarge(), LOGIN,
                request.getHeader("Accept")));
        write(response, out.status(), out.contentType(), out.body(), out.headers(), body.tooLarge());
    }

    private static void write(HttpServletResponse response, int status, String type, String body,
                              Map<String, String> headers, boolean close) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(type);
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        for (Map.Entry<String, String> h : headers.entrySet()) {
            response.setHeader(h.getKey(), h.getValue());
        }
        if (close) {
            response.setHeader("Connection", "close");
        }
        response.setContentLength(bytes.length);
        try (OutputStream os = response.getOutputStream()) {
            os.write(bytes);
        }
    }

    /** The client's address as Jetty gives it (an IP literal; no name lookup). */
    private static InetAddress address(String literal) {
        if (literal == null || literal.isEmpty()) {
            return null;
        }
        try {
            return InetAddress.getByName(literal.startsWith("[") ? literal.substring(1, literal.length() - 1)
                    : literal);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    @Override
    public void destroy() {
        // nothing held
    }
}
