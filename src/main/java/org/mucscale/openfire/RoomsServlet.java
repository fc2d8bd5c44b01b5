package org.mucscale.openfire;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.mucscale.engine.runtime.admin.AdminApi;
import org.mucscale.engine.runtime.admin.RoomsAdminPage;

/**
 * The admin console page {@code /plugins/mucscale/mucscale-rooms.jsp} (Group Chat → MUC Scale rooms): the rooms of
 * the MUC Scale service and each room's configuration, occupants, affiliations and destroy form. A servlet on a .jsp
 * path, as the dashboard (Openfire decorates it by its pageID); the pages and actions are the engine's
 * {@link RoomsAdminPage}. Behind the admin login; Openfire checks a POST's {@code csrf} parameter before this runs.
 */
public final class RoomsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final String[] FIELDS = {"action", "room", "roomName", "naturalName", "description", "maxUsers",
        "publicRoom", "moderated", "membersOnly", "canAnyoneDiscoverJID", "canOccupantsChangeSubject", "logEnabled",
        "archivingEnabled", "allowPM", "owners", "nick", "jid", "jids", "do", "reason", "affiliation",
        "alternateVenue"};

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        render(request, response, null);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        AdminApi api = api();
        if (api == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        Map<String, String> form = new HashMap<>();
        for (String name : FIELDS) {
            String v = request.getParameter(name);
            if (v != null) {
                form.put(name, v);
            }
        }
        String notice = RoomsAdminPage.act(api, form, "admin-console", request.getRemoteAddr());
        render(request, response, notice);
    }

    private static AdminApi api() {
        MucScaleContext context = MucScaleContext.current();
        return context == null || context.engine() == null ? null : context.engine().adminApi();
    }

    private static void render(HttpServletRequest request, HttpServletResponse response, String notice)
            throws IOException {
        AdminApi api = api();
        if (api == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        Map<String, String> params = new HashMap<>();
        for (String name : new String[] {"room", "search", "after"}) {
            String v = request.getParameter(name);
            if (v != null) {
                params.put(name, v);
            }
        }
        if (notice != null && "destroy".equals(request.getParameter("action"))) {
            params.remove("room"); // the room is gone: back to the list
        }
        response.setContentType("text/html; charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        Object csrf = request.getAttribute("csrf");
        response.getWriter().write(RoomsAdminPage.page(api, params, csrf == null ? "" : csrf.toString(), notice));
    }
}
