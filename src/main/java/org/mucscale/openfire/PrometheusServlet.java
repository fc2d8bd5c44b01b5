package org.mucscale.openfire;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.servlet.http.HttpSession;
import org.mucscale.engine.metrics.MetricsAccess;
import org.mucscale.engine.metrics.MetricsConfig;
import org.mucscale.engine.metrics.MucScaleMetrics;

/**
 * {@code /plugins/mucscale/metrics}: Prometheus text format, off unless {@code mucscale.metrics.prometheus-enabled}.
 * By default only a logged-in admin reaches it (Openfire's admin login guards every plugin URL). When a token or an
 * address list is configured the plugin excludes this one path from the admin login, and this servlet lets through
 * exactly: an admin session, a request with the token (Bearer or Basic password), or a client address in the list.
 */
public final class PrometheusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Session attribute Openfire's AuthCheckFilter sets after an admin login. */
    static final String ADMIN_TOKEN_ATTRIBUTE = "jive.admin.authToken";

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setHeader("Cache-Control", "no-store");
        MucScaleContext context = MucScaleContext.current();
        MucScaleMetrics metrics = context == null ? null : context.metrics();
        if (metrics == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        // From the settings in force, not the engine's start-up copy: token and address list are dynamic.
        MetricsConfig config = MetricsConfig.from(context.settings());
        if (!config.prometheusEnabled()) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND, "Prometheus export is off");
            return;
        }
        HttpSession session = request.getSession(false);
        boolean admin = session != null && session.getAttribute(ADMIN_TOKEN_ATTRIBUTE) != null;
        InetAddress remote;
        try {
            remote = InetAddress.getByName(request.getRemoteAddr()); // a literal address: never resolved
        } catch (UnknownHostException e) {
            remote = null;
        }
        if (!new MetricsAccess(config).prometheusAllowed(remote, request.getHeader("Authorization"), admin)) {
            response.sendError(HttpServletResponse.SC_FORBIDDEN);
            return;
        }
        response.setContentType(MucScaleMetrics.PROMETHEUS_CONTENT_TYPE);
        metrics.writePrometheus(response.getWriter());
    }
}
