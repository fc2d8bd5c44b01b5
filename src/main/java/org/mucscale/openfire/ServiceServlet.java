package org.mucscale.openfire;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.jivesoftware.util.JiveGlobals;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.engine.runtime.admin.ServiceAdminPage;

/**
 * The admin console page {@code /plugins/mucscale/mucscale-service.jsp} (Group Chat → MUC Scale service): the default
 * room template, who may create rooms and the service administrators, as the engine's {@link ServiceAdminPage}
 * shows them. A change is saved as Openfire system properties ({@code JiveGlobals.setProperty}), the settings' home
 * inside Openfire: the plugin's property subscription reconfigures the engine, and the values survive a restart and
 * are the same on every cluster node. Behind the admin login; Openfire checks a POST's {@code csrf} parameter before
 * this runs.
 */
public final class ServiceServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        render(request, response, null);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        MucScaleEngine engine = engine();
        if (engine == null || engine.adminApi() == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        Map<String, String> form = new HashMap<>();
        for (String name : ServiceAdminPage.fields()) {
            String v = request.getParameter(name);
            if (v != null) {
                form.put(name, v);
            }
        }
        String notice = ServiceAdminPage.act(form, engine.currentSettings(), changed -> changed.forEach(
                JiveGlobals::setProperty), engine.adminApi().audit(), "admin-console", request.getRemoteAddr());
        render(request, response, notice);
    }

    private static MucScaleEngine engine() {
        MucScaleContext context = MucScaleContext.current();
        return context == null ? null : context.engine();
    }

    private static void render(HttpServletRequest request, HttpServletResponse response, String notice)
            throws IOException {
        MucScaleEngine engine = engine();
        if (engine == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        response.setContentType("text/html; charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        Object csrf = request.getAttribute("csrf");
        response.getWriter().write(ServiceAdminPage.page(engine.currentSettings(), engine.serviceDomain(),
                csrf == null ? "" : csrf.toString(), notice));
    }
}
