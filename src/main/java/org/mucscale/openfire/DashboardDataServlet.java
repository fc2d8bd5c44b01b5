package org.mucscale.openfire;

import java.io.IOException;
import java.io.Writer;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.mucscale.engine.metrics.MucScaleMetrics;

/**
 * {@code /plugins/mucscale/mucscale-dashboard-data}: GET returns the dashboard's JSON for {@code range} seconds
 * (clamped by the engine to 60..3600); POST with {@code action=probe} sends a probe message now. Behind the admin
 * login; Openfire checks the POST's {@code csrf} parameter against the session before this servlet runs.
 *
 * <p>Openfire issues a fresh CSRF token on every servlet request, including these GETs, so each response carries the
 * current one in the {@code X-Mucscale-Csrf} header for the page's next POST.
 */
public final class DashboardDataServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        noStore(request, response);
        MucScaleContext context = MucScaleContext.current();
        MucScaleMetrics metrics = context == null ? null : context.metrics();
        if (metrics == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        int range = parseRange(request.getParameter("range"));
        response.setContentType("application/json; charset=utf-8");
        Writer out = response.getWriter();
        metrics.dashboard().writeJson(out, range);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        noStore(request, response);
        MucScaleContext context = MucScaleContext.current();
        if (context == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        String action = request.getParameter("action");
        if (!"probe".equals(action)) {
            response.sendError(HttpServletResponse.SC_BAD_REQUEST, "unknown action");
            return;
        }
        if (!context.probeNow()) {
            response.sendError(HttpServletResponse.SC_CONFLICT, "the probe is off (mucscale.metrics.probe-enabled)");
            return;
        }
        response.setContentType("text/plain; charset=utf-8");
        response.getWriter().write("probe sent");
    }

    private static void noStore(HttpServletRequest request, HttpServletResponse response) {
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        Object csrf = request.getAttribute("csrf");
        if (csrf != null) {
            response.setHeader("X-Mucscale-Csrf", csrf.toString());
        }
    }

    static int parseRange(String text) {
        if (text == null || text.isEmpty() || text.length() > 6) {
            return 900;
        }
        int v = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return 900;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
