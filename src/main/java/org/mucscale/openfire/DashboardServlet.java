package org.mucscale.openfire;

import java.io.IOException;
import java.io.PrintWriter;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.mucscale.engine.metrics.DashboardPage;

/**
 * The admin console page {@code /plugins/mucscale/mucscale-dashboard.jsp}. Not a JSP: Openfire serves plugin JSPs only
 * when precompiled, but decorates any page on a {@code .jsp} path whose HTML carries
 * {@code <meta name="pageID" content="mucscale-dashboard">} (the metrics engine's page does), so this servlet writes
 * the page with the CSRF token Openfire just issued for this request. Behind the admin login like every plugin URL.
 */
public final class DashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object csrf = request.getAttribute("csrf");
        response.setContentType("text/html; charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        PrintWriter out = response.getWriter();
        out.write(DashboardPage.html(csrf == null ? "" : csrf.toString(), DashboardPage.DEFAULT_DATA_URL));
    }
}
